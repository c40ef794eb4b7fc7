// Periodic work (the demo app's sync polling) that falls due while a recorder runs must show up
// in its samples and traces, although the simulation schedules it lazily.
import { afterAll, beforeAll, expect, test } from 'vitest'
import { connectAdb, shell, type AdbDevice } from '../../../src/device/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../../../src/virtual-device/index.js'

let server: VirtualDeviceServer
let device: AdbDevice

beforeAll(async () => {
  server = await startVirtualDevice({ devices: 1, time: 'fast', seed: 5 })
  device = (await connectAdb({ port: server.port })).device(server.serials[0]!)
  await shell(device, ['am', 'start', '-W', '-n', 'com.example.trails/.MainActivity'])
  await shell(device, ['input', 'tap', '540', '2325']) // the Sync tab
  await shell(device, ['input', 'tap', '540', '485']) // Sync now: polling every 4 s follows
  await shell(device, ['sleep', '3'])
})
afterAll(async () => server.close())

test('simpleperf samples the polling that ran during the recording', async () => {
  const file = '/data/local/tmp/poll.data'
  await shell(device, [
    'simpleperf',
    'record',
    '--app',
    'com.example.trails',
    '-e',
    'task-clock',
    '-f',
    '4000',
    '--duration',
    '10',
    '-o',
    file,
  ])
  const { stdout } = await shell(device, [
    'simpleperf',
    'report-sample',
    '--show-callchain',
    '-i',
    file,
  ])
  expect(stdout).toContain('com.example.trails.SyncManager.poll')
})

test('an ART sampling trace contains the polling calls', async () => {
  const file = '/data/local/tmp/poll.trace'
  await shell(device, ['am', 'profile', 'start', '--sampling', '100', 'com.example.trails', file])
  await shell(device, ['sleep', '10'])
  await shell(device, ['am', 'profile', 'stop', 'com.example.trails'])
  const { stdout } = await shell(device, ['cat', file])
  expect(stdout).toContain('SyncManager\tpoll')
})
