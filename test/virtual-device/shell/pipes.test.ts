/**
 * Pipes between shell processes (issue 16): stages run at once joined by 64 KiB pipes, a writer
 * waits for room, a writer whose reader has ended gets SIGPIPE, and `producer | head -n 1` ends.
 * Bounds are read from the pipes' own byte counts (`pipeStats()`), not from timing.
 */
import { describe, expect, it, vi } from 'vitest'
import { fastClock } from '../../../src/virtual-device/clock.js'
import { createDevice } from '../../../src/virtual-device/device.js'
import type { VirtualDeviceHandle } from '../../../src/virtual-device/contract.js'
import {
  execShell,
  PIPE_CAPACITY,
  pipeStats,
  resetPipeStats,
  streamingCommand,
} from '../../../src/virtual-device/shell/index.js'
import { STDIN_COLLECT_MAX } from '../../../src/virtual-device/shell/streams.js'
import { run } from './_run.js'

const device = (): VirtualDeviceHandle => createDevice({ serial: 'pipe', clock: fastClock() })

/** A 64 KiB file, so a loop that cats it fills a pipe or a cap in few iterations. */
function withBigFile(d: VirtualDeviceHandle): string {
  d.fs.writeFile('/data/local/tmp/64k', new Uint8Array(64 * 1024).fill(0x61))
  return '/data/local/tmp/64k'
}

describe('a reader that ends stops its writer (SIGPIPE)', () => {
  it('`while true; do echo x; done | head -n 1` prints one line and ends with status 0', async () => {
    resetPipeStats()
    expect(await run(device(), 'while true; do echo x; done | head -n 1; echo $?')).toEqual({
      status: 0,
      out: 'x\n0\n',
    })
    expect(pipeStats().bytes).toBe(0)
    expect(pipeStats().peakBytes).toBeLessThanOrEqual(PIPE_CAPACITY)
  })

  it('through several stages, and when the reader never reads', async () => {
    const d = device()
    const version = new TextDecoder().decode(d.fs.readFile('/proc/version'))
    expect(
      await run(d, 'while true; do cat /proc/version; done | cat | grep Linux | head -n 1'),
    ).toEqual({
      status: 0,
      out: version,
    })
    expect((await run(d, 'while true; do echo x; done | cat | head -n 2 | wc -l')).out).toBe('2\n')
    expect(await run(d, 'while true; do echo x; done | true; echo $?')).toEqual({
      status: 0,
      out: '0\n',
    })
    expect((await run(d, 'while true; do echo x; done | grep -q x; echo $?')).out).toBe('0\n')
  })

  it('kills the whole writing stage: what follows the loop in it never runs', async () => {
    expect((await run(device(), '(while true; do echo x; done; echo after >&2) | true')).out).toBe(
      '',
    )
  })

  it('a writer that never writes again is waited for, as sh waits for every stage', async () => {
    expect((await run(device(), 'sleep 5 | true; echo done')).out).toBe('done\n')
  })
})

describe('a pipe holds 64 KiB', () => {
  it('a reader that does not read makes its writer wait at the capacity', async () => {
    const d = device()
    let release: () => void = () => undefined
    const released = new Promise<void>((resolve) => {
      release = resolve
    })
    d.commands.set(
      'gate',
      streamingCommand(async () => {
        await released
        return 0
      }),
    )
    const echo = d.commands.get('echo')
    let echoes = 0
    d.commands.set('echo', (inv) => {
      echoes++
      return echo?.(inv) ?? 1
    })
    resetPipeStats()
    const done = run(d, 'while true; do echo 0123456789abcdef; done | gate; echo $?')
    await vi.waitFor(() => expect(pipeStats().bytes).toBeGreaterThanOrEqual(PIPE_CAPACITY))
    const whenFull = echoes
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve))
    expect(echoes).toBe(whenFull)
    expect(pipeStats().bytes).toBeLessThanOrEqual(PIPE_CAPACITY + 17)
    release()
    expect((await done).out).toBe('0\n')
    expect(pipeStats().bytes).toBe(0)
  })

  it('output streams through the stages while the producer runs', async () => {
    const d = device()
    const controller = new AbortController()
    let out = ''
    const write = (c: string | Uint8Array): void => {
      out += Buffer.from(c).toString()
      if (out.includes('tick\ntick\n')) controller.abort('enough')
    }
    await execShell(
      d,
      'while true; do echo tick; sleep 1; done | cat | grep tick',
      { write, writeErr: write },
      controller.signal,
    )
    expect(out.startsWith('tick\ntick\n')).toBe(true)
    await vi.waitFor(() =>
      expect(d.processes.list().filter((p) => p.user === 'shell' && p.name !== 'adbd')).toEqual([]),
    )
  })
})

describe('readers that take their input whole are capped', () => {
  it('a command that takes stdin as one buffer gets at most STDIN_COLLECT_MAX of it', async () => {
    const d = device()
    const file = withBigFile(d)
    d.commands.set('whole', (inv) => {
      inv.io.write(`${inv.stdin.length}\n`)
      return 0
    })
    expect(await run(d, `echo in | whole; while true; do cat ${file}; done | whole`)).toEqual({
      status: 0,
      out: `3\n${STDIN_COLLECT_MAX}\n`,
    })
  })

  it('`$( )` reads at most STDIN_COLLECT_MAX; the command then gets SIGPIPE (141)', async () => {
    const d = device()
    const file = withBigFile(d)
    expect((await run(d, `x=$(while true; do cat ${file}; done); echo $?`)).out).toBe('141\n')
  })
})

describe('filters read stdin as it arrives', () => {
  it('head keeps an unterminated line as it is; wc counts a word split across writes once', async () => {
    const d = device()
    expect((await run(d, 'echo -n abc | head -n 1')).out).toBe('abc')
    expect((await run(d, '{ echo -n ab; echo -n cd; echo " e"; } | wc -w')).out).toBe('2\n')
    expect((await run(d, '{ echo -n ab; echo -n cd; echo " e"; } | wc -c')).out).toBe('7\n')
    expect((await run(d, 'for i in 1 2 3 4 5; do echo $i; done | tail -n 2')).out).toBe('4\n5\n')
  })
})
