/**
 * Bad input and bad clients: malformed requests get `FAIL` + a message, never a crash; clients that
 * vanish mid-transfer or mid-shell leave the server serving everyone else.
 */
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { isEnergyError } from '../../../src/model/errors.js'
import { AdbServerErrors } from '../../../src/virtual-device/adb/errors.js'
import { startAdbServer, type AdbServer } from '../../../src/virtual-device/adb/server.js'
import { encodeData, syncFrame, syncHeader } from '../../../src/virtual-device/adb/wire.js'
import { createDevice } from '../../../src/virtual-device/device.js'
import type { VirtualDeviceHandle } from '../../../src/virtual-device/contract.js'
import { adbkitClient, rawExchange, readAll, transportSocket } from './_helpers.js'

const fail = (message: string): string =>
  `FAIL${Buffer.byteLength(message).toString(16).padStart(4, '0')}${message}`

describe('malformed and unknown requests', () => {
  let server: AdbServer
  let devices: VirtualDeviceHandle[]
  beforeAll(async () => {
    devices = [createDevice({ serial: 'neg-1' }), createDevice({ serial: 'neg-2' })]
    server = await startAdbServer({ devices })
  })
  afterAll(async () => {
    await server.close()
  })

  const stillServes = async (): Promise<void> => {
    expect(await adbkitClient(server.port).version()).toBe(41)
    const out = await readAll(await adbkitClient(server.port).getDevice('neg-2').shell('echo ok'))
    expect(out.toString()).toBe('ok\n')
  }

  it('a non-hex length prefix gets FAIL with a message', async () => {
    const reply = await rawExchange(server.port, Buffer.from('zz12host:version'))
    expect(reply.toString()).toBe(fail('malformed length prefix "zz12": expected 4 hex digits'))
    await stillServes()
  })

  it('a zero-length request, a truncated request and garbage bytes do not crash it', async () => {
    expect((await rawExchange(server.port, Buffer.from('0000'))).toString()).toBe(
      fail('empty request'),
    )
    // Announces 0x00ff bytes, sends 3, then closes.
    const short = net.connect(server.port, '127.0.0.1')
    await new Promise<void>((resolve) => short.on('connect', resolve))
    short.end('00ffhos')
    await new Promise<void>((resolve) => short.on('close', () => resolve()))
    const garbage = Buffer.from([0xff, 0x00, 0x13, 0x37, 0x80, 0x81])
    expect((await rawExchange(server.port, garbage)).subarray(0, 4).toString()).toBe('FAIL')
    await stillServes()
  })

  it('unknown host service / unknown prefix', async () => {
    expect((await rawExchange(server.port, encodeData('host:frobnicate'))).toString()).toBe(
      fail('unknown host service'),
    )
    expect((await rawExchange(server.port, encodeData('frobnicate'))).toString()).toBe(
      fail('unknown host service'),
    )
    expect(
      (await rawExchange(server.port, encodeData('host-serial:neg-1:frobnicate'))).toString(),
    ).toBe(fail('unknown host service'))
  })

  it('unknown serial, ambiguous transport-any, offline device', async () => {
    expect((await rawExchange(server.port, encodeData('host:transport:nope'))).toString()).toBe(
      fail("device 'nope' not found"),
    )
    expect((await rawExchange(server.port, encodeData('host:tport:serial:nope'))).toString()).toBe(
      fail("device 'nope' not found"),
    )
    expect((await rawExchange(server.port, encodeData('host:transport-any'))).toString()).toBe(
      fail('more than one device/emulator'),
    )
    const single = await startAdbServer({ devices: [createDevice({ serial: 'only' })] })
    const empty = await startAdbServer({ devices: [] })
    try {
      const reply = await rawExchange(single.port, [
        encodeData('host:transport-any'),
        encodeData('shell:getprop ro.serialno'),
      ])
      expect(reply.toString()).toBe('OKAYOKAYonly\n')
      expect((await rawExchange(empty.port, encodeData('host:transport-any'))).toString()).toBe(
        fail('no devices/emulators found'),
      )
    } finally {
      await single.close()
      await empty.close()
    }
    devices[0]!.state = 'offline'
    try {
      expect((await rawExchange(server.port, encodeData('host:transport:neg-1'))).toString()).toBe(
        fail('device offline'),
      )
    } finally {
      devices[0]!.state = 'device'
    }
  })

  it('host:tport answers OKAY + 8-byte little-endian transport id; features is empty', async () => {
    const reply = await rawExchange(server.port, [
      encodeData('host:tport:serial:neg-2'),
      encodeData('shell:echo hi'),
    ])
    expect(reply.subarray(0, 4).toString()).toBe('OKAY')
    expect(reply.readBigUInt64LE(4)).toBe(2n)
    expect(reply.subarray(12).toString()).toBe('OKAYhi\n')
    expect(
      (await rawExchange(server.port, encodeData('host-serial:neg-2:features'))).toString(),
    ).toBe('OKAY0000')
  })

  it('an unknown device service fails the way a closed adbd stream does', async () => {
    const reply = await rawExchange(server.port, [
      encodeData('host:transport:neg-1'),
      encodeData('frob:'),
    ])
    expect(reply.toString()).toBe(`OKAY${fail('closed')}`)
  })

  it("sync: unknown id, oversized DATA, a path over 1024 bytes, a non-DATA frame get adbd's FAIL frames", async () => {
    const t = (extra: Buffer[]): Promise<Buffer> =>
      rawExchange(server.port, [encodeData('host:transport:neg-1'), encodeData('sync:'), ...extra])
    const unknown = await t([syncHeader('DONE', 0).fill('ABCD', 0, 4)])
    expect(unknown.subarray(8).toString('latin1', 0, 4)).toBe('FAIL')
    // adbd's words (file_sync_service.cpp): the id as its little-endian u32 in hex.
    expect(unknown.subarray(16).toString()).toBe('unknown command 44434241')
    const big = await t([syncFrame('SEND', '/data/local/tmp/x,420'), syncHeader('DATA', 70_000)])
    expect(big.subarray(8).toString('latin1')).toBe(
      `FAIL${String.fromCharCode(21, 0, 0, 0)}oversize data message`,
    )
    const long = await t([syncHeader('STAT', 5000)])
    expect(long.subarray(16).toString()).toBe('path too long')
    const notData = await t([syncFrame('SEND', '/data/local/tmp/x,420'), syncHeader('QUIT', 0)])
    expect(notData.subarray(16).toString()).toBe('invalid data message')
    expect(devices[0]!.fs.stat('/data/local/tmp/x')).toBeUndefined()
    await stillServes()
  })

  it('a client that disconnects mid-RECV leaves the server serving others', async () => {
    const data = new Uint8Array(16 * 1024 * 1024).fill(7)
    devices[0]!.fs.writeFile('/data/local/tmp/huge.bin', data)
    const socket = await transportSocket(server.port, 'neg-1')
    socket.write(encodeData('sync:'))
    socket.write(syncFrame('RECV', '/data/local/tmp/huge.bin'))
    let received = 0
    await new Promise<void>((resolve) => {
      socket.on('data', (c: Buffer) => {
        received += c.length
        if (received > 300_000) {
          socket.destroy()
          resolve()
        }
      })
    })
    expect(received).toBeLessThan(data.length)
    await stillServes()
    const pulled = await readAll(
      await adbkitClient(server.port).getDevice('neg-1').pull('/data/local/tmp/huge.bin'),
    )
    expect(pulled.length).toBe(data.length)
  })

  it('a client that disconnects mid-SEND leaves no file and the server serving', async () => {
    const socket = await transportSocket(server.port, 'neg-1')
    socket.write(encodeData('sync:'))
    socket.write(syncFrame('SEND', '/data/local/tmp/partial.bin,420'))
    socket.write(syncHeader('DATA', 65536))
    socket.write(Buffer.alloc(1000))
    await new Promise((r) => setTimeout(r, 20))
    socket.destroy()
    await stillServes()
    expect(devices[0]!.fs.stat('/data/local/tmp/partial.bin')).toBeUndefined()
  })

  it('a client that disconnects mid-shell aborts the command (streamed output arrived first)', async () => {
    const device = devices[1]!
    const socket = await transportSocket(server.port, 'neg-2')
    socket.write(encodeData('shell:while true; do echo tick; sleep 0.05; done'))
    const first = await new Promise<string>((resolve) => {
      let text = ''
      socket.on('data', (c: Buffer) => {
        text += c.toString()
        if (text.includes('tick\ntick\n')) resolve(text)
      })
    })
    // The loop never ends, so receiving ticks proves the output streams.
    expect(first.startsWith('OKAYtick\n')).toBe(true)
    expect(device.processes.list().some((p) => p.name === 'sleep')).toBe(true)
    socket.destroy()
    await vi.waitFor(() => {
      expect(
        device.processes.list().filter((p) => p.user === 'shell' && p.name !== 'adbd'),
      ).toEqual([])
    })
    await stillServes()
  })
})

describe('server lifecycle errors', () => {
  it('refuses a non-loopback host with an EnergyError', async () => {
    const error = await startAdbServer({ host: '0.0.0.0', devices: [] }).catch((e: unknown) => e)
    expect(isEnergyError(error) && error.code).toBe(AdbServerErrors.NOT_LOOPBACK)
    const error2 = await startAdbServer({ host: '192.168.1.10' }).catch((e: unknown) => e)
    expect(isEnergyError(error2) && error2.code).toBe(AdbServerErrors.NOT_LOOPBACK)
  })

  it('reports a busy port and a duplicate serial', async () => {
    const first = await startAdbServer({ devices: [] })
    try {
      const error = await startAdbServer({ port: first.port }).catch((e: unknown) => e)
      expect(isEnergyError(error) && error.code).toBe(AdbServerErrors.LISTEN_FAILED)
      first.addDevice(createDevice({ serial: 'dup' }))
      expect(() => first.addDevice(createDevice({ serial: 'dup' }))).toThrow(/already served/)
      const twice = [createDevice({ serial: 'twin' }), createDevice({ serial: 'twin' })]
      const error2 = await startAdbServer({ devices: twice }).catch((e: unknown) => e)
      expect(isEnergyError(error2) && error2.code).toBe(AdbServerErrors.DUPLICATE_SERIAL)
    } finally {
      await first.close()
    }
  })

  it('host:kill answers OKAY and shuts the server down', async () => {
    const server = await startAdbServer({ devices: [createDevice({ serial: 'k-1' })] })
    expect((await rawExchange(server.port, encodeData('host:kill'))).toString()).toBe('OKAY')
    await server.closed
    await expect(rawExchange(server.port, encodeData('host:version'))).rejects.toThrow(
      /ECONNREFUSED/,
    )
  })
})
