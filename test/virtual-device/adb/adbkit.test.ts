/**
 * The real adbkit client against a real server on an ephemeral loopback port: every host service,
 * then shell / pull / push / readdir / stat on every device, with 1 and with 4 devices per server.
 */
import { createHash } from 'node:crypto'
import { PassThrough } from 'node:stream'
import type { DeviceWithPath } from '@devicefarmer/adbkit'
type Entry = { readonly name: string; readonly size: number }
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAdbServer, type AdbServer } from '../../../src/virtual-device/adb/server.js'
import { createDevice } from '../../../src/virtual-device/device.js'
import type { VirtualDeviceHandle } from '../../../src/virtual-device/contract.js'
import { encodeData } from '../../../src/virtual-device/adb/wire.js'
import { adbkitClient, rawExchange, readAll } from './_helpers.js'

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex')

/** Deterministic pseudo-random bytes (xorshift32). */
function bytes(n: number, seed: number): Buffer {
  const b = Buffer.alloc(n)
  let x = seed >>> 0 || 1
  for (let i = 0; i < n; i++) {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    b[i] = x & 0xff
  }
  return b
}

describe.each([1, 4])('adbkit against a server with %i device(s)', (count) => {
  let server: AdbServer
  let devices: VirtualDeviceHandle[]
  const serials = Array.from({ length: count }, (_, i) => `vdev-${i + 1}`)

  beforeAll(async () => {
    devices = serials.map((serial) => createDevice({ serial }))
    server = await startAdbServer({ devices })
  })
  afterAll(async () => {
    await server.close()
  })

  it('host:version reports 41', async () => {
    expect(await adbkitClient(server.port).version()).toBe(41)
  })

  it('host:devices and host:devices-l list every device with its transport id', async () => {
    const client = adbkitClient(server.port)
    expect(await client.listDevices()).toEqual(serials.map((id) => ({ id, type: 'device' })))
    const long = await client.listDevicesWithPaths()
    expect(
      long.map((d: DeviceWithPath) => [
        d.id,
        d.type,
        d.path,
        d.product,
        d.model,
        d.device,
        d.transportId,
      ]),
    ).toEqual(
      serials.map((id, i) => [
        id,
        'device',
        `usb:1-${i + 1}`,
        'product:oriole',
        'model:Pixel_6__virtual_',
        'device:oriole',
        `transport_id:${i + 1}`,
      ]),
    )
  })

  it('host-serial get-state / get-devpath / get-serialno answer per device', async () => {
    const client = adbkitClient(server.port)
    for (const [i, serial] of serials.entries()) {
      expect(await client.getDevice(serial).getState()).toBe('device')
      expect(await client.getDevice(serial).getDevicePath()).toBe(`usb:1-${i + 1}`)
      // adbkit 3.3's getSerialNo() is wired to GetDevicePathCommand (an adbkit bug), so ask raw.
      const raw = await rawExchange(server.port, encodeData(`host-serial:${serial}:get-serialno`))
      expect(raw.toString()).toBe(`OKAY${serial.length.toString(16).padStart(4, '0')}${serial}`)
    }
  })

  it('host:track-devices reports the list and later changes', async () => {
    const client = adbkitClient(server.port)
    const tracker = await client.trackDevices()
    const added = new Promise<string>((resolve) =>
      tracker.on('add', (d: { id: string }) => resolve(d.id)),
    )
    const extra = createDevice({ serial: `extra-${count}` })
    // The first report (existing devices) arrives before we add one.
    await new Promise((r) => setTimeout(r, 50))
    server.addDevice(extra)
    expect(await added).toBe(`extra-${count}`)
    const removed = new Promise<string>((resolve) =>
      tracker.on('remove', (d: { id: string }) => resolve(d.id)),
    )
    const changed = new Promise<string>((resolve) =>
      tracker.on('change', (d: { id: string; type: string }) => resolve(`${d.id} ${d.type}`)),
    )
    expect(server.setDeviceState(`extra-${count}`, 'offline')).toBe(true)
    expect(await changed).toBe(`extra-${count} offline`)
    expect(server.removeDevice(`extra-${count}`)).toBe(true)
    expect(await removed).toBe(`extra-${count}`)
    expect(server.setDeviceState(`extra-${count}`, 'device')).toBe(false)
    tracker.end()
  })

  it('shell runs on each device with its own state', async () => {
    const client = adbkitClient(server.port)
    await Promise.all(
      serials.map(async (serial) => {
        const device = client.getDevice(serial)
        await readAll(await device.shell(`echo ${serial} > /data/local/tmp/who`))
        const out = await readAll(
          await device.shell('cat /data/local/tmp/who; getprop ro.serialno'),
        )
        expect(out.toString()).toBe(`${serial}\n${serial}\n`)
      }),
    )
    for (const d of devices)
      expect(d.commandLog).toContain('cat /data/local/tmp/who; getprop ro.serialno')
  })

  it('shell with an argv array is quoted by adbkit and unquoted by our sh', async () => {
    const device = adbkitClient(server.port).getDevice(serials[0]!)
    const out = await readAll(await device.shell(['echo', "it's", 'a b', '$HOME']))
    expect(out.toString()).toBe("it's a b $HOME\n")
  })

  it('a background job outlives its shell connection and stops on kill -INT', async () => {
    const device = adbkitClient(server.port).getDevice(serials[0]!)
    const sh = async (line: string): Promise<string> =>
      (await readAll(await device.shell(line))).toString()
    expect(await sh('sleep 1000 & echo started')).toBe('started\n')
    const pid = (await sh('pidof sleep')).trim()
    expect(pid).toMatch(/^\d+$/)
    expect(await sh(`ps -A -o PID,NAME | grep sleep; kill -INT ${pid}; echo $?`)).toBe(
      `${pid.padStart(5)} sleep\n0\n`,
    )
    expect(await sh('pidof sleep; echo $?')).toBe('1\n')
  })

  it('getProperties parses our getprop output', async () => {
    const props = await adbkitClient(server.port).getDevice(serials[0]!).getProperties()
    expect(props['ro.product.model']).toBe('Pixel 6 (virtual)')
    expect(props['ro.build.version.sdk']).toBe('33')
    expect(props['ro.serialno']).toBe(serials[0])
  })

  it('push then pull 1.5 MB byte-identical on every device, stat and readdir agree', async () => {
    const client = adbkitClient(server.port)
    await Promise.all(
      serials.map(async (serial, i) => {
        const device = client.getDevice(serial)
        const data = bytes(1_500_000 + i * 4099, i + 7)
        const source = new PassThrough()
        source.end(data)
        const push = await device.push(source, '/data/local/tmp/blob.bin', 0o640)
        await new Promise<void>((resolve, reject) => {
          push.on('end', resolve)
          push.on('error', reject)
        })
        const pulled = await readAll(await device.pull('/data/local/tmp/blob.bin'))
        expect(sha256(pulled)).toBe(sha256(data))
        const stat = await device.stat('/data/local/tmp/blob.bin')
        expect(stat.size).toBe(data.length)
        expect(stat.isFile()).toBe(true)
        expect(stat.mode & 0o777).toBe(0o640)
        const entries = await device.readdir('/data/local/tmp')
        expect(entries.map((e: Entry) => e.name).sort()).toEqual(['blob.bin', 'who'])
        expect(entries.find((e: Entry) => e.name === 'blob.bin')?.size).toBe(data.length)
        const dir = await device.stat('/data/local/tmp')
        expect(dir.isDirectory()).toBe(true)
      }),
    )
  })

  it('shell output is byte-transparent (no PTY): cat of a binary file equals the file', async () => {
    const device = adbkitClient(server.port).getDevice(serials[0]!)
    const data = bytes(777_777, 99)
    devices[0]!.fs.writeFile('/data/local/tmp/raw.bin', data)
    const out = await readAll(await device.shell('cat /data/local/tmp/raw.bin'))
    expect(sha256(out)).toBe(sha256(data))
  })

  it('pull of a missing file fails the way adbd phrases it', async () => {
    const device = adbkitClient(server.port).getDevice(serials[0]!)
    const transfer = await device.pull('/data/local/tmp/missing')
    const error = await new Promise<Error>((resolve) => transfer.on('error', resolve))
    expect(error.message).toBe("Failure: 'open failed: No such file or directory'")
  })

  it('stat of a missing file is ENOENT', async () => {
    const device = adbkitClient(server.port).getDevice(serials[0]!)
    await expect(device.stat('/nope')).rejects.toThrow(/ENOENT/)
  })

  it("push to a read-only place fails with adbd's message", async () => {
    const device = adbkitClient(server.port).getDevice(serials[0]!)
    const source = new PassThrough()
    source.end(Buffer.from('x'))
    const push = await device.push(source, '/system/evil', 0o644)
    const error = await new Promise<Error>((resolve) => push.on('error', resolve))
    expect(error.message).toBe("Failure: 'couldn't create file: Read-only file system'")
  })

  it('unknown serial fails with the adb server message', async () => {
    const device = adbkitClient(server.port).getDevice('nope-42')
    await expect(device.shell('echo')).rejects.toThrow("device 'nope-42' not found")
  })
})
