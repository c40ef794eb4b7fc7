/**
 * Issue 16: the server under a misbehaving client. A client that never reads an endless shell
 * output stalls that command and costs a bounded number of bytes; `producer | head -n 1` ends;
 * typing a MiB into `adb shell` does not cost a socket write per byte; other clients and devices are
 * answered throughout. Bounds are checked on the server's own byte counts (`server.stats()`,
 * `pipeStats()`) and, as a backstop, on the process's RSS; nothing here asserts a speed.
 */
import { spawn } from 'node:child_process'
import net from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startAdbServer, type AdbServer } from '../../../src/virtual-device/adb/server.js'
import { LINE_MAX } from '../../../src/virtual-device/adb/interactive.js'
import {
  encodeData,
  READ_HIGH_WATER_MARK,
  syncFrame,
} from '../../../src/virtual-device/adb/wire.js'
import { createDevice } from '../../../src/virtual-device/device.js'
import type { VirtualDeviceHandle } from '../../../src/virtual-device/contract.js'
import {
  PIPE_CAPACITY,
  pipeStats,
  resetPipeStats,
} from '../../../src/virtual-device/shell/index.js'
import { SHELL_VARS_MAX_CHARS } from '../../../src/virtual-device/shell/interpreter.js'
import { ADB_BIN, adbkitClient, hasAdb, readAll, runAdb, transportSocket } from './_helpers.js'

const MB = 1e6
/** What the issue allows a misbehaving client to cost the server. */
const RSS_BUDGET = 200 * MB
/** A stalled shell may owe its client Node's socket buffer plus what one command wrote. */
const UNSENT_BOUND = 256 * 1024

const rss = (): number => process.memoryUsage().rss

/** Counts the device's `echo` runs (to see a stalled loop stop). */
function countEchoes(device: VirtualDeviceHandle): () => number {
  const echo = device.commands.get('echo')
  if (echo === undefined) throw new Error('no echo')
  let runs = 0
  device.commands.set('echo', (inv) => {
    runs++
    return echo(inv)
  })
  return () => runs
}

/**
 * Sends `chunk` over and over until the server holds its read high-water mark of unread bytes (it
 * has stopped reading), then goes on sending and checks the server's buffers stay bounded.
 */
async function floodUntilUnread(
  server: AdbServer,
  socket: net.Socket,
  chunk: Buffer,
): Promise<void> {
  for (let i = 0; i < 400 && server.stats().unreadBytes < READ_HIGH_WATER_MARK; i++) {
    socket.write(chunk)
    await sleep(5)
  }
  expect(server.stats().unreadBytes).toBeGreaterThanOrEqual(READ_HIGH_WATER_MARK)
  for (let i = 0; i < 20; i++) {
    socket.write(chunk)
    await sleep(5)
    const stats = server.stats()
    expect(stats.unreadBytes).toBeLessThanOrEqual(READ_HIGH_WATER_MARK + 64 * 1024)
    expect(stats.unsentBytes).toBeLessThan(UNSENT_BOUND)
  }
}

describe('backpressure: a client that does not read', () => {
  let server: AdbServer
  let stalled: VirtualDeviceHandle
  let other: VirtualDeviceHandle
  beforeAll(async () => {
    stalled = createDevice({ serial: 'bp-1' })
    other = createDevice({ serial: 'bp-2' })
    server = await startAdbServer({ devices: [stalled, other] })
  })
  afterAll(async () => {
    await server.close()
  })

  const othersAreServed = async (): Promise<void> => {
    const client = adbkitClient(server.port)
    expect(await client.version()).toBe(41)
    expect((await client.listDevices()).map((d: { id: string }) => d.id)).toEqual(['bp-1', 'bp-2'])
    for (const serial of ['bp-1', 'bp-2']) {
      const out = await readAll(await client.getDevice(serial).shell('echo ok'))
      expect(out.toString()).toBe('ok\n')
    }
  }

  const shellProcesses = (d: VirtualDeviceHandle): string[] =>
    d.processes
      .list()
      .filter((p) => p.user === 'shell' && p.name !== 'adbd')
      .map((p) => p.name)

  it('(a) `while true; do echo x; done` to a client that never reads: flat memory', async () => {
    const echoes = countEchoes(stalled)
    const before = rss()
    const socket = await transportSocket(server.port, 'bp-1')
    socket.pause() // never read: the kernel's buffers fill, then the shell waits
    socket.write(encodeData('shell:while true; do echo x; done'))
    // Tiny writes fill the kernel's buffers slowly; the point here is what each iteration costs.
    await vi.waitFor(
      () => {
        expect(server.stats().unsentBytes).toBeLessThan(UNSENT_BOUND)
        expect(echoes()).toBeGreaterThan(50_000)
      },
      { timeout: 120_000, interval: 20 },
    )
    expect(rss() - before).toBeLessThan(RSS_BUDGET)
    await othersAreServed()
    socket.destroy()
    await vi.waitFor(() => expect(shellProcesses(stalled)).toEqual([]))
  }, 180_000)

  it('a variable doubled forever ends its shell with "out of memory"; the server stays small and answers', async () => {
    const before = rss()
    const client = adbkitClient(server.port)
    const out = await readAll(
      await client
        .getDevice('bp-1')
        .shell('x=aaaaaaaa; while true; do x=$x$x; done; echo never; echo status $?'),
    )
    // The shell itself ends (as mksh does when an allocation fails): nothing after the loop runs.
    expect(out.toString()).toBe('/system/bin/sh: out of memory\n')
    // Many variables of 2 MiB each, within a word's bound, reach the shell's total instead.
    const many = await readAll(
      await client
        .getDevice('bp-1')
        .shell(
          'x=aaaaaaaa; i=0; while [ $i -lt 18 ]; do x=$x$x; i=$((i+1)); done; j=0; while true; do export v$j=$x; j=$((j+1)); echo $j; done',
        ),
    )
    const counted = many.toString().split('\n')
    expect(counted.at(-2)).toBe('/system/bin/sh: out of memory')
    // 2 MiB of x, then one more 2 MiB variable per line until the shell's total (the small i and j
    // variables push the last one over).
    expect(Number(counted.at(-3))).toBe(SHELL_VARS_MAX_CHARS / (2 * 1024 * 1024) - 2)
    expect(rss() - before).toBeLessThan(RSS_BUDGET)
    await othersAreServed()
  }, 180_000)

  it('(a) an endless output nobody reads stalls the command, bounded; others are served', async () => {
    const echoes = countEchoes(stalled)
    const before = rss()
    const socket = await transportSocket(server.port, 'bp-1')
    socket.pause()
    socket.write(encodeData(`shell:while true; do echo ${'x'.repeat(1000)}; done`))
    await vi.waitFor(() => expect(server.stats().stalledShells).toBe(1), { timeout: 120_000 })

    const ranWhenStalled = echoes()
    for (let i = 0; i < 50; i++) {
      await sleep(10)
      const stats = server.stats()
      expect(stats.stalledShells).toBe(1)
      expect(stats.unsentBytes).toBeLessThan(UNSENT_BOUND)
      expect(stats.unreadBytes).toBe(0)
    }
    // The loop does not run while its client does not read.
    expect(echoes() - ranWhenStalled).toBe(0)
    await othersAreServed()
    expect(server.stats().stalledShells).toBe(1)
    expect(rss() - before).toBeLessThan(RSS_BUDGET)

    socket.destroy()
    await vi.waitFor(() => expect(shellProcesses(stalled)).toEqual([]))
    await vi.waitFor(() => expect(server.stats().stalledShells).toBe(0))
    await othersAreServed()
  }, 180_000)

  it.skipIf(!hasAdb)(
    '(a) the same with the real adb client whose stdout is never read',
    async () => {
      const before = rss()
      const child = spawn(
        ADB_BIN,
        [
          '-P',
          String(server.port),
          '-s',
          'bp-2',
          'shell',
          `while true; do echo ${'x'.repeat(1000)}; done`,
        ],
        { stdio: ['ignore', 'pipe', 'ignore'] },
      )
      child.stdout.pause()
      try {
        await vi.waitFor(() => expect(server.stats().stalledShells).toBe(1), { timeout: 60_000 })
        for (let i = 0; i < 20; i++) {
          await sleep(10)
          expect(server.stats().unsentBytes).toBeLessThan(UNSENT_BOUND)
        }
        await othersAreServed()
        expect(rss() - before).toBeLessThan(RSS_BUDGET)
      } finally {
        child.kill('SIGKILL')
      }
      await vi.waitFor(() => expect(shellProcesses(other)).toEqual([]))
    },
    180_000,
  )

  it('(a) `yes` to a client that never reads: it waits for the client, bounded; the hang-up ends it', async () => {
    const before = rss()
    const socket = await transportSocket(server.port, 'bp-1')
    socket.pause()
    socket.write(encodeData('shell:yes'))
    await vi.waitFor(() => expect(server.stats().stalledShells).toBe(1), { timeout: 120_000 })
    expect(shellProcesses(stalled)).toContain('yes')
    for (let i = 0; i < 50; i++) {
      await sleep(10)
      expect(server.stats().unsentBytes).toBeLessThan(UNSENT_BOUND)
    }
    expect(rss() - before).toBeLessThan(RSS_BUDGET)
    await othersAreServed()
    socket.destroy()
    await vi.waitFor(() => expect(shellProcesses(stalled)).toEqual([]))
    await vi.waitFor(() => expect(server.stats().stalledShells).toBe(0))
  }, 180_000)

  it('a client that floods a shell command with input costs nothing; its hang-up is noticed', async () => {
    const socket = await transportSocket(server.port, 'bp-2')
    socket.write(encodeData('shell:sleep 1000'))
    await vi.waitFor(() => expect(shellProcesses(other)).toContain('sleep'))
    const chunk = Buffer.alloc(64 * 1024, 0x61)
    for (let i = 0; i < 64; i++) {
      socket.write(chunk) // 4 MiB in all: the legacy stream gives a command no stdin
      await sleep(1)
      expect(server.stats().unreadBytes).toBeLessThanOrEqual(READ_HIGH_WATER_MARK + 64 * 1024)
    }
    await othersAreServed()
    socket.destroy()
    await vi.waitFor(() => expect(shellProcesses(other)).toEqual([]))
  })

  it('a sync client that sends requests without reading replies: the server stops reading at 1 MiB', async () => {
    const socket = await transportSocket(server.port, 'bp-2')
    socket.pause()
    socket.write(encodeData('sync:'))
    const stat = syncFrame('STAT', '/data/local/tmp')
    const batch = Buffer.concat(Array.from({ length: 2048 }, () => stat))
    await floodUntilUnread(server, socket, batch)
    await othersAreServed()
    socket.destroy()
    await vi.waitFor(() => expect(server.stats().connections).toBe(0))
  })
})

describe('backpressure: a device tracker that does not read', () => {
  it('gets the newest list once it drains instead of one per change', async () => {
    // 40 devices: each list is ~1.3 KB, so 20 000 changes would be ~26 MB unread.
    const devices = Array.from({ length: 40 }, (_, i) =>
      createDevice({ serial: `tracked-device-${String(i).padStart(8, '0')}` }),
    )
    const server = await startAdbServer({ devices })
    try {
      const socket = net.connect(server.port, '127.0.0.1')
      socket.pause()
      socket.write(encodeData('host:track-devices'))
      await vi.waitFor(() => expect(server.stats().connections).toBe(1))
      await sleep(10)
      const last = 'tracked-device-00000039'
      for (let i = 0; i < 20_000; i++) {
        server.setDeviceState(last, i % 2 === 0 ? 'offline' : 'device')
      }
      expect(server.stats().unsentBytes).toBeLessThan(UNSENT_BOUND)
      server.setDeviceState(last, 'unauthorized')
      // Once it reads, the last list it gets is the newest state.
      let text = ''
      socket.on('data', (c: Buffer) => {
        text = (text + c.toString('latin1')).slice(-100)
      })
      socket.resume()
      await vi.waitFor(() => expect(text.endsWith(`${last}\tunauthorized\n`)).toBe(true))
      socket.destroy()
    } finally {
      await server.close()
    }
  })
})

describe('backpressure: pipes', () => {
  let server: AdbServer
  let device: VirtualDeviceHandle
  beforeAll(async () => {
    device = createDevice({ serial: 'pipe-1' })
    server = await startAdbServer({ devices: [device] })
  })
  afterAll(async () => {
    await server.close()
  })

  const shell = async (command: string): Promise<string> =>
    (await readAll(await adbkitClient(server.port).getDevice('pipe-1').shell(command))).toString()

  it('(b) `while true; do echo x; done | head -n 1` ends with the line; pipes stay bounded', async () => {
    resetPipeStats()
    const before = rss()
    expect(await shell('while true; do echo x; done | head -n 1; echo "status $?"')).toBe(
      'x\nstatus 0\n',
    )
    expect(
      await shell('while true; do cat /proc/version; done | cat | grep Linux | head -n 2'),
    ).toBe(`${new TextDecoder().decode(device.fs.readFile('/proc/version'))}`.repeat(2))
    expect(await shell('while true; do echo x; done | true; echo "status $?"')).toBe('status 0\n')
    expect(pipeStats().peakBytes).toBeLessThanOrEqual(PIPE_CAPACITY)
    expect(pipeStats().bytes).toBe(0)
    expect(rss() - before).toBeLessThan(RSS_BUDGET)
    expect(device.processes.list().filter((p) => p.name === 'sh')).toEqual([])
  })

  it.skipIf(!hasAdb)('(b) the same through the real adb client', async () => {
    const r = await runAdb(server.port, [
      '-s',
      'pipe-1',
      'shell',
      'while true; do echo x; done | head -n 1',
    ])
    expect(r.stdout.toString()).toBe('x\n')
    expect(r.code).toBe(0)
  })

  it('(b) a reader that stops reading makes its writer wait at the pipe capacity', async () => {
    let release: () => void = () => undefined
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    const { streamingCommand } = await import('../../../src/virtual-device/shell/index.js')
    // A reader that never reads its stdin until released.
    device.commands.set(
      'gate',
      streamingCommand(async () => {
        await released
        return 0
      }),
    )
    const echoes = countEchoes(device)
    resetPipeStats()
    const done = shell('while true; do echo 0123456789abcdef; done | gate; echo "status $?"')
    await vi.waitFor(() => expect(pipeStats().bytes).toBeGreaterThanOrEqual(PIPE_CAPACITY), {
      timeout: 60_000,
    })
    const ranWhenFull = echoes()
    for (let i = 0; i < 20; i++) {
      await sleep(5)
      expect(pipeStats().bytes).toBeLessThanOrEqual(PIPE_CAPACITY + 17)
    }
    expect(echoes() - ranWhenFull).toBe(0)
    expect(await adbkitClient(server.port).version()).toBe(41)
    release()
    expect(await done).toBe('status 0\n')
    expect(pipeStats().bytes).toBe(0)
    expect(pipeStats().peakBytes).toBeLessThanOrEqual(PIPE_CAPACITY + 17)
  })
})

describe('backpressure: an interactive shell', () => {
  let server: AdbServer
  beforeAll(async () => {
    server = await startAdbServer({ devices: [createDevice({ serial: 'tty-bp' })] })
  })
  afterAll(async () => {
    await server.close()
  })

  /** An `adb shell` session that keeps only the last bytes it received and counts them. */
  const session = async (): Promise<{
    socket: net.Socket
    tail: () => string
    received: () => number
  }> => {
    const socket = net.connect(server.port, '127.0.0.1')
    let tail = ''
    let received = 0
    socket.on('data', (c: Buffer) => {
      received += c.length
      tail = (tail + c.toString('latin1')).slice(-200)
    })
    socket.write(Buffer.concat([encodeData('host:transport:tty-bp'), encodeData('shell:')]))
    await vi.waitFor(() => expect(tail).toBe('OKAYOKAYoriole:/ $ '))
    return { socket, tail: () => tail, received: () => received }
  }

  it('(c) typing a MiB of command lines costs far fewer socket writes than bytes', async () => {
    const { socket, tail, received } = await session()
    const line = `: ${'a'.repeat(1021)}\r` // 1 KiB: a no-op command, echoed back
    const typed = Buffer.from(line.repeat(1024))
    const writesBefore = server.stats().shellWrites
    const before = rss()
    socket.write(typed)
    socket.write('echo done\r')
    await vi.waitFor(() => expect(tail()).toMatch(/done\r\ndone\r\noriole:\/ \$ $/), {
      timeout: 120_000,
    })
    const writes = server.stats().shellWrites - writesBefore
    // Each of the 1025 lines echoes ~1 KiB and a prompt: far fewer writes than the 1 MiB typed.
    expect(received()).toBeGreaterThan(typed.length)
    expect(writes).toBeLessThan(typed.length / 128)
    expect(rss() - before).toBeLessThan(RSS_BUDGET)
    socket.destroy()
  })

  it('(c) a MiB typed on one line: the line stops at 4095 bytes and the rest rings the bell', async () => {
    const { socket, tail, received } = await session()
    const writesBefore = server.stats().shellWrites
    const typed = Buffer.alloc(1024 * 1024, 0x61)
    socket.write(typed)
    socket.write('\x03')
    await vi.waitFor(() => expect(tail().endsWith('\x07^C\r\n130|oriole:/ $ ')).toBe(true), {
      timeout: 120_000,
    })
    // Every typed byte came back once (an echoed 'a' or a bell), in far fewer writes.
    expect(received()).toBe(
      'OKAYOKAYoriole:/ $ '.length + typed.length + '^C\r\n130|oriole:/ $ '.length,
    )
    expect(server.stats().shellWrites - writesBefore).toBeLessThan(typed.length / 1024)
    socket.destroy()
  })

  it('(c) keys typed while a command runs wait for it; a Ctrl-C among them interrupts it', async () => {
    const { socket, tail, received } = await session()
    socket.write('sleep 1000\r')
    await vi.waitFor(() => expect(tail()).toContain('sleep 1000\r\n'))
    const typed = 512 * 1024
    socket.write(Buffer.alloc(typed, 0x62))
    await vi.waitFor(() => expect(server.stats().unreadBytes).toBe(0))
    const before = received()
    socket.write('\x03')
    // The interrupted command's prompt, then the queued keys replayed: the line takes LINE_MAX of
    // them (echoed), the others ring the bell.
    await vi.waitFor(() => expect(received() - before).toBe('^C\r\n130|oriole:/ $ '.length + typed))
    expect(tail().endsWith('\x07'.repeat(100))).toBe(true)
    expect(typed).toBeGreaterThan(LINE_MAX)
    socket.destroy()
  })

  it('(c) a client that types without reading: the session stops reading, bounded', async () => {
    const { socket } = await session()
    socket.pause()
    await floodUntilUnread(server, socket, Buffer.alloc(64 * 1024, 0x61))
    socket.destroy()
    await vi.waitFor(() => expect(server.stats().connections).toBe(0))
  })
})
