/**
 * `adb forward` and the `tcp:` device service: the real adb client (as Appium's UiAutomator2
 * driver runs it) and adbkit, against a server listening on the phone's loopback.
 */
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAdbServer, type AdbServer } from '../../../src/virtual-device/adb/server.js'
import type { VirtualDeviceHandle } from '../../../src/virtual-device/contract.js'
import { createDevice } from '../../../src/virtual-device/device.js'
import { freePort } from '../../../src/session/appium-server.js'
import { adbkitClient, hasAdb, readAll, runAdb } from './_helpers.js'

/** A phone-side echo server on `port` that prefixes what it sends back. */
function listenEcho(device: VirtualDeviceHandle, port: number, prefix: string): void {
  device.tcpListeners.set(port, (connection) => {
    connection.on('data', (chunk: Buffer) => connection.write(`${prefix}${chunk.toString()}`))
    connection.on('end', () => connection.end())
  })
}

/** Connects to 127.0.0.1:port, sends `text`, and returns what came back before the close. */
function roundTrip(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    let got = ''
    socket.on('data', (d: Buffer) => {
      got += d.toString()
      socket.end()
    })
    socket.on('close', () => resolve(got))
    socket.on('error', reject)
    socket.on('connect', () => socket.write(text))
  })
}

describe.skipIf(!hasAdb)('adb forward with the real adb client', () => {
  let server: AdbServer
  const a = createDevice({ serial: 'vdev-a' })
  const b = createDevice({ serial: 'vdev-b' })

  beforeAll(async () => {
    server = await startAdbServer({ devices: [a, b] })
    listenEcho(a, 6790, 'a:')
    listenEcho(b, 6790, 'b:')
  })
  afterAll(async () => server.close())

  it('forwards a host port to each phone’s own port, lists and removes them', async () => {
    const portA = await freePort()
    const first = await runAdb(server.port, ['-s', 'vdev-a', 'forward', `tcp:${portA}`, 'tcp:6790'])
    expect(first.code, first.stderr).toBe(0)
    // tcp:0: the server picks a port and the client prints it.
    const picked = await runAdb(server.port, ['-s', 'vdev-b', 'forward', 'tcp:0', 'tcp:6790'])
    expect(picked.code, picked.stderr).toBe(0)
    const portB = Number(picked.stdout.toString().trim())
    expect(portB).toBeGreaterThan(0)
    expect(await roundTrip(portA, 'hello')).toBe('a:hello')
    expect(await roundTrip(portB, 'hello')).toBe('b:hello')

    const list = await runAdb(server.port, ['forward', '--list'])
    expect(list.stdout.toString()).toBe(
      `vdev-a tcp:${portA} tcp:6790\nvdev-b tcp:${portB} tcp:6790\n\n`,
    )
    // --no-rebind refuses an existing host port; a rebind moves it to the other phone.
    const norebind = await runAdb(server.port, [
      '-s',
      'vdev-b',
      'forward',
      '--no-rebind',
      `tcp:${portA}`,
      'tcp:6790',
    ])
    expect(norebind.code).toBe(1)
    expect(norebind.stderr).toContain('cannot rebind existing socket')
    const rebind = await runAdb(server.port, [
      '-s',
      'vdev-b',
      'forward',
      `tcp:${portA}`,
      'tcp:6790',
    ])
    expect(rebind.code, rebind.stderr).toBe(0)
    expect(await roundTrip(portA, 'x')).toBe('b:x')

    const removed = await runAdb(server.port, [
      '-s',
      'vdev-b',
      'forward',
      '--remove',
      `tcp:${portA}`,
    ])
    expect(removed.code, removed.stderr).toBe(0)
    const again = await runAdb(server.port, ['-s', 'vdev-b', 'forward', '--remove', `tcp:${portA}`])
    expect(again.code).toBe(1)
    expect(again.stderr).toContain(`listener 'tcp:${portA}' not found`)
    await expect(roundTrip(portA, 'x')).rejects.toThrow(/ECONNREFUSED/)

    // --remove-all removes every forward, whichever phone -s names.
    const all = await runAdb(server.port, ['-s', 'vdev-a', 'forward', '--remove-all'])
    expect(all.code, all.stderr).toBe(0)
    expect((await runAdb(server.port, ['forward', '--list'])).stdout.toString()).toBe('\n')
  })

  it('closes a forwarded connection when nothing listens on the phone’s port', async () => {
    const port = await freePort()
    expect(
      (await runAdb(server.port, ['-s', 'vdev-a', 'forward', `tcp:${port}`, 'tcp:1234'])).code,
    ).toBe(0)
    expect(await roundTrip(port, 'anyone?')).toBe('')
    await runAdb(server.port, ['-s', 'vdev-a', 'forward', '--remove-all'])
  })

  it('refuses a host port already in use, and remotes other than tcp', async () => {
    const busy = net.createServer().listen(0, '127.0.0.1')
    await new Promise((r) => busy.once('listening', r))
    const port = (busy.address() as net.AddressInfo).port
    const r = await runAdb(server.port, ['-s', 'vdev-a', 'forward', `tcp:${port}`, 'tcp:6790'])
    busy.close()
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('cannot bind listener: EADDRINUSE')
    const remote = await runAdb(server.port, [
      '-s',
      'vdev-a',
      'forward',
      'tcp:0',
      'localabstract:x',
    ])
    expect(remote.code).toBe(1)
    expect(remote.stderr).toContain('unsupported remote: localabstract:x')
  })

  it('a device leaving the server takes its forwards with it', async () => {
    const c = createDevice({ serial: 'vdev-c' })
    listenEcho(c, 6790, 'c:')
    server.addDevice(c)
    const port = await freePort()
    expect(
      (await runAdb(server.port, ['-s', 'vdev-c', 'forward', `tcp:${port}`, 'tcp:6790'])).code,
    ).toBe(0)
    expect(await roundTrip(port, 'y')).toBe('c:y')
    server.removeDevice('vdev-c')
    await expect(roundTrip(port, 'y')).rejects.toThrow(/ECONNREFUSED/)
    expect((await runAdb(server.port, ['forward', '--list'])).stdout.toString()).toBe('\n')
  })
})

describe('the tcp: device service', () => {
  it('joins an adbkit connection to the phone-side server; FAIL when none listens', async () => {
    const device = createDevice({ serial: 'vdev-t' })
    listenEcho(device, 6790, 't:')
    const server = await startAdbServer({ devices: [device] })
    try {
      const client = adbkitClient(server.port).getDevice('vdev-t')
      const stream = await client.openTcp(6790)
      stream.write('ping')
      const reply = await new Promise<string>((resolve) =>
        stream.once('data', (d: Buffer) => resolve(d.toString())),
      )
      expect(reply).toBe('t:ping')
      stream.end()
      await readAll(stream)
      await expect(client.openTcp(4321)).rejects.toThrow(/closed/)
    } finally {
      await server.close()
    }
  })
})
