/**
 * toybox `taskset` and `yes` on a device: masks as toybox reads and prints them, the errors it
 * prints, exec in place (same pid, the command's name in `ps`), background jobs and `$!`; `yes`
 * output that is lazy and bounded, and a `yes > /dev/null` that costs the host nothing while it
 * runs. The simulation's side (the busy CPU) is in test/virtual-device/commands/taskset-yes.test.ts.
 */
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, expect, it, vi } from 'vitest'
import type { CpuHost } from '../../../src/virtual-device/contract.js'
import { createDevice } from '../../../src/virtual-device/device.js'
import { formatCpuMask, parseCpuMask } from '../../../src/virtual-device/shell/commands/cpu.js'
import { run } from './_run.js'

describe('masks', () => {
  it('hex without 0x, digits from the right, as toybox reads them; printed without leading zeros', () => {
    expect(parseCpuMask('10')).toEqual([4])
    expect(parseCpuMask('40')).toEqual([6])
    expect(parseCpuMask('f0')).toEqual([4, 5, 6, 7])
    expect(parseCpuMask('C')).toEqual([2, 3])
    expect(parseCpuMask('00ff')).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    expect(parseCpuMask('')).toEqual([])
    expect(parseCpuMask('0x10')).toBeUndefined()
    expect(parseCpuMask('g')).toBeUndefined()
    expect(formatCpuMask([0, 1, 2, 3, 4, 5, 6, 7])).toBe('ff')
    expect(formatCpuMask([6])).toBe('40')
    expect(formatCpuMask([64])).toBe('10000000000000000')
  })
})

describe('taskset (a bare device: eight CPUs)', () => {
  it('-p prints a process’s mask; with a mask it sets it and prints the new one; exec keeps it', async () => {
    const d = createDevice({ serial: 'ts-1' })
    const pid = (await run(d, 'sleep 1000 & echo $!')).out.trim()
    expect(await run(d, `taskset -p ${pid}`)).toEqual({
      status: 0,
      out: `pid ${pid}'s current affinity mask: ff\n`,
    })
    expect(await run(d, `taskset -p 30 ${pid}`)).toEqual({
      status: 0,
      out: `pid ${pid}'s current affinity mask: ff\npid ${pid}'s new affinity mask: 30\n`,
    })
    // Bits beyond the phone's CPUs are dropped, as the kernel keeps only CPUs it has.
    expect((await run(d, `taskset -p 1c0 ${pid}; taskset -ap ${pid}`)).out).toBe(
      `pid ${pid}'s current affinity mask: 30\npid ${pid}'s new affinity mask: c0\npid ${pid}'s current affinity mask: c0\n`,
    )
    expect(d.processes.affinity(Number(pid))).toEqual([6, 7])
    await run(d, `kill ${pid}`)
  })

  it('taskset MASK cmd runs cmd in place: same pid, the command’s name in ps, its affinity set', async () => {
    const d = createDevice({ serial: 'ts-2' })
    const pid = (await run(d, 'taskset 3 sleep 1000 & echo $!')).out.trim()
    await vi.waitFor(() => expect(d.processes.get(Number(pid))?.name).toBe('sleep'))
    expect((await run(d, 'pidof sleep')).out).toBe(`${pid}\n`)
    expect((await run(d, `taskset -p ${pid}`)).out).toBe(`pid ${pid}'s current affinity mask: 3\n`)
    // Its own flags are its own: options end at the mask.
    expect(await run(d, 'taskset 1 echo -n hi')).toEqual({ status: 0, out: 'hi' })
    expect(await run(d, 'taskset 1 /system/bin/echo a | taskset 2 cat')).toEqual({
      status: 0,
      out: 'a\n',
    })
    await run(d, `kill ${pid}`)
    await vi.waitFor(() => expect(d.processes.get(Number(pid))).toBeUndefined())
  })

  it.each([
    ['taskset', 'taskset: Need 1 argument\n'],
    ['taskset 1', 'taskset: Needs 2 args\n'],
    ['taskset zz echo', "taskset: bad mask 'zz'\n"],
    ['taskset 0x10 echo', "taskset: bad mask '0x10'\n"],
    // No CPU of the phone: sched_setaffinity's EINVAL.
    ['taskset 100 echo x', /^taskset: failed to set pid \d+'s affinity: Invalid argument\n$/],
    ['taskset 0 echo x', /^taskset: failed to set pid \d+'s affinity: Invalid argument\n$/],
    ['taskset 1 nosuchcmd', 'taskset: exec nosuchcmd: No such file or directory\n'],
    ['taskset -p abc', 'taskset: Not int abc\n'],
    ['taskset -p 99999', "taskset: failed to get pid 99999's affinity: No such process\n"],
    ['taskset -x 1 echo', "taskset: Unknown option 'x'\n"],
    // Another user's process (system_server): EPERM, after the current mask.
    [
      'taskset -p 1 1021',
      "pid 1021's current affinity mask: ff\ntaskset: failed to set pid 1021's affinity: Operation not permitted\n",
    ],
  ])('%s → as toybox, status 1 (127 for a missing command)', async (line, says) => {
    const d = createDevice({ serial: 'ts-3' })
    const r = await run(d, line)
    expect(r.status).toBe(line.includes('nosuchcmd') ? 127 : 1)
    if (typeof says === 'string') expect(r.out).toBe(says)
    else expect(r.out).toMatch(says)
  })

  it('uses the CPUs the simulation has when there is one', async () => {
    const d = createDevice({ serial: 'ts-4' })
    const cpu: CpuHost = { cpus: [0, 1, 2, 3], spin: () => ({ stop: () => undefined }) }
    d.cpu = cpu
    expect((await run(d, 'taskset 10 echo x')).out).toMatch(/Invalid argument/)
    const pid = (await run(d, 'sleep 1000 & echo $!')).out.trim()
    expect((await run(d, `taskset -p ${pid}`)).out).toBe(`pid ${pid}'s current affinity mask: f\n`)
    await run(d, `kill ${pid}`)
  })
})

describe('yes', () => {
  it('prints its arguments (y without) line after line, lazily: a pipe’s reader ends it', async () => {
    const d = createDevice({ serial: 'y-1' })
    expect(await run(d, 'yes | head -n 3')).toEqual({ status: 0, out: 'y\ny\ny\n' })
    expect(await run(d, 'yes a b | head -n 2')).toEqual({ status: 0, out: 'a b\na b\n' })
    expect(d.processes.list().filter((p) => p.name === 'yes')).toEqual([])
  })

  it('runs as a busy thread of its process on the CPUs its affinity allows, until killed', async () => {
    const d = createDevice({ serial: 'y-2' })
    const spins: { pid: number; name: string; comm: string; cpus: readonly number[] }[] = []
    let stopped = 0
    d.cpu = {
      cpus: [0, 1, 2, 3, 4, 5, 6, 7],
      spin: (p, allowed) => {
        spins.push({ ...p, cpus: allowed() })
        return { stop: () => void stopped++ }
      },
    }
    const pid = Number((await run(d, 'taskset 40 yes > /dev/null & echo $!')).out)
    await vi.waitFor(() => expect(spins).toEqual([{ pid, name: 'yes', comm: 'yes', cpus: [6] }]))
    expect((await run(d, 'pidof yes')).out).toBe(`${pid}\n`)
    expect((await run(d, 'ps -A -o PID,NAME')).out).toContain(`${pid} yes`)
    expect(stopped).toBe(0)
    await run(d, `kill -9 ${pid}`)
    await vi.waitFor(() => expect(stopped).toBe(1))
    expect((await run(d, 'pidof yes')).status).toBe(1)
  })

  it('with its output discarded it writes nothing and leaves the host’s event loop idle', async () => {
    const d = createDevice({ serial: 'y-3' })
    const pid = (await run(d, 'yes > /dev/null & echo $!')).out.trim()
    await sleep(50)
    const before = performance.eventLoopUtilization()
    await sleep(300)
    const busy = performance.eventLoopUtilization(before).utilization
    expect(busy, 'share of the last 300 ms the event loop was busy').toBeLessThan(0.5)
    await run(d, `kill ${pid}`)
  })

  it('into a file it stops writing at 8 MiB (never unbounded), then waits to be killed without spinning', async () => {
    const d = createDevice({ serial: 'y-4' })
    const pid = (await run(d, 'yes > /data/local/tmp/y.txt & echo $!')).out.trim()
    const size = (): number => d.fs.readFile('/data/local/tmp/y.txt').length
    await vi.waitFor(() => expect(size()).toBeGreaterThanOrEqual(8 * 1024 * 1024), {
      timeout: 20_000,
    })
    const full = size()
    expect(full).toBeLessThanOrEqual(8 * 1024 * 1024 + 64 * 1024)
    const before = performance.eventLoopUtilization()
    await sleep(200)
    expect(performance.eventLoopUtilization(before).utilization).toBeLessThan(0.5)
    expect(size()).toBe(full)
    expect(d.processes.get(Number(pid))?.name).toBe('yes')
    await run(d, `kill ${pid}`)
    await vi.waitFor(() => expect(d.processes.get(Number(pid))).toBeUndefined())
  })

  it('in the foreground, the session ending (the client hanging up) ends it', async () => {
    const d = createDevice({ serial: 'y-5' })
    let stopped = 0
    d.cpu = {
      cpus: [0, 1, 2, 3, 4, 5, 6, 7],
      spin: () => ({ stop: () => void stopped++ }),
    }
    const hangup = new AbortController()
    const running = run(d, 'taskset 10 yes > /dev/null', hangup.signal)
    await vi.waitFor(() => expect(d.processes.list().find((p) => p.name === 'yes')).toBeDefined())
    hangup.abort()
    await running
    await vi.waitFor(() => expect(stopped).toBe(1))
    expect(d.processes.list().filter((p) => p.name === 'yes')).toEqual([])
  })
})
