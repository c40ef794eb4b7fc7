/** Where doctor looks for the adb server: adb's own rules (client/commandline.cpp). */
import { describe, expect, test } from 'vitest'
import { describeAdbAddressSource, resolveAdbAddress } from '../../src/cli/doctor/adb-address.js'
import { isEnergyError } from '../../src/model/index.js'

describe('resolveAdbAddress', () => {
  test.each([
    ['nothing set: 127.0.0.1:5037', {}, {}, ['127.0.0.1', 5037, 'default', []]],
    ['-P', { port: '5038' }, {}, ['127.0.0.1', 5038, 'options', []]],
    ['-H and -P', { host: 'lab', port: '5038' }, {}, ['lab', 5038, 'options', []]],
    [
      'ANDROID_ADB_SERVER_PORT',
      {},
      { ANDROID_ADB_SERVER_PORT: '6000' },
      ['127.0.0.1', 6000, 'environment', ['ANDROID_ADB_SERVER_PORT']],
    ],
    [
      'both variables',
      {},
      { ANDROID_ADB_SERVER_ADDRESS: 'lab', ANDROID_ADB_SERVER_PORT: '6000' },
      ['lab', 6000, 'environment', ['ANDROID_ADB_SERVER_ADDRESS', 'ANDROID_ADB_SERVER_PORT']],
    ],
    [
      '-H fills in the host, ANDROID_ADB_SERVER_PORT still the port (as adb)',
      { host: 'lab' },
      { ANDROID_ADB_SERVER_PORT: '6000' },
      ['lab', 6000, 'options', ['ANDROID_ADB_SERVER_PORT']],
    ],
    [
      'ADB_SERVER_SOCKET beats the ANDROID_ variables',
      {},
      { ADB_SERVER_SOCKET: 'tcp:farm:7000', ANDROID_ADB_SERVER_PORT: '6000' },
      ['farm', 7000, 'ADB_SERVER_SOCKET', ['ADB_SERVER_SOCKET']],
    ],
    [
      'ADB_SERVER_SOCKET without a host',
      {},
      { ADB_SERVER_SOCKET: 'tcp:7000' },
      ['127.0.0.1', 7000, 'ADB_SERVER_SOCKET', ['ADB_SERVER_SOCKET']],
    ],
    [
      'an IPv6 host in brackets',
      {},
      { ADB_SERVER_SOCKET: 'tcp:[::1]:7000' },
      ['::1', 7000, 'ADB_SERVER_SOCKET', ['ADB_SERVER_SOCKET']],
    ],
    [
      '-P silences ADB_SERVER_SOCKET',
      { port: '5038' },
      { ADB_SERVER_SOCKET: 'tcp:farm:7000' },
      ['127.0.0.1', 5038, 'options', []],
    ],
    [
      'empty variables count as unset',
      {},
      { ANDROID_ADB_SERVER_PORT: '', ADB_SERVER_SOCKET: '' },
      ['127.0.0.1', 5037, 'default', []],
    ],
  ] as const)('%s', (_name, options, env, [host, port, from, envVars]) => {
    expect(resolveAdbAddress(options, env)).toEqual({ host, port, from, envVars })
  })

  test.each([
    [{ port: '0' }, {}],
    [{ port: '65536' }, {}],
    [{ port: '50 37' }, {}],
    [{}, { ANDROID_ADB_SERVER_PORT: '-1' }],
    [{}, { ADB_SERVER_SOCKET: 'tcp:farm:x' }],
    [{}, { ADB_SERVER_SOCKET: 'localabstract:adb' }],
  ])('%j %j → E_CLI_USAGE', (options, env) => {
    let error: unknown
    try {
      resolveAdbAddress(options, env)
    } catch (e) {
      error = e
    }
    expect(isEnergyError(error) && error.code).toBe('E_CLI_USAGE')
  })

  test('describeAdbAddressSource names where it came from', () => {
    const say = (options: { host?: string; port?: string }, env: Record<string, string>) =>
      describeAdbAddressSource(resolveAdbAddress(options, env))
    expect(say({}, {})).toBe("adb's default")
    expect(say({ port: '1' }, {})).toBe('-H/-P')
    expect(say({ host: 'h' }, { ANDROID_ADB_SERVER_PORT: '2' })).toBe(
      '-H/-P and ANDROID_ADB_SERVER_PORT',
    )
    expect(say({}, { ADB_SERVER_SOCKET: 'tcp:3' })).toBe('ADB_SERVER_SOCKET')
  })
})
