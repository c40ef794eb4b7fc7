/** Base commands: byte-for-byte toybox output, on a device with a frozen (fast) clock. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { fastClock } from '../../../src/virtual-device/clock.js'
import { createDevice, procHundredths } from '../../../src/virtual-device/device.js'
import { run } from './_run.js'

/** 2023-11-14 22:13:20.123456789 UTC, 1 h of uptime, 10 min suspended. */
const REALTIME_NS = 1_700_000_000_123_456_768
const frozen = () =>
  createDevice({
    serial: 'cmd-1',
    clock: fastClock({
      realtimeStartNs: REALTIME_NS,
      bootOffsetNs: 3_600_000_000_000,
      suspendedNs: 600e9,
    }),
  })

describe('getprop / setprop', () => {
  it('lists all properties sorted as [key]: [value], one key prints its value', async () => {
    const d = createDevice({ serial: 'p-1', props: { 'zz.custom': 'x y' } })
    const all = (await run(d, 'getprop')).out.split('\n')
    expect(all).toContain('[ro.product.model]: [Pixel 6 (virtual)]')
    expect(all).toContain('[ro.serialno]: [p-1]')
    expect(all).toContain('[ro.debuggable]: [0]')
    expect(all.at(-2)).toBe('[zz.custom]: [x y]')
    const keys = all.filter((l) => l !== '').map((l) => l.slice(1, l.indexOf(']')))
    expect(keys).toEqual([...keys].sort())
    expect(
      (await run(d, 'getprop ro.build.version.sdk; getprop no.such; getprop no.such dflt')).out,
    ).toBe('33\n\ndflt\n')
  })

  it('setprop sets, but not over a read-only property', async () => {
    const d = frozen()
    expect((await run(d, 'setprop debug.x 1; getprop debug.x')).out).toBe('1\n')
    expect(await run(d, 'setprop ro.debuggable 1')).toEqual({
      status: 1,
      out: "Failed to set property 'ro.debuggable' to '1'.\nSee dmesg for error reason.\n",
    })
  })
})

describe('cat, ls, rm, mkdir, touch', () => {
  it('ls -l: toybox columns, total in 1 KiB blocks, long-iso times', async () => {
    const d = frozen()
    await run(
      d,
      'echo hello > /data/local/tmp/a.txt; mkdir /data/local/tmp/dir; touch /data/local/tmp/empty',
    )
    d.fs.writeFile('/data/local/tmp/big.bin', new Uint8Array(123_456))
    expect((await run(d, 'ls -l /data/local/tmp')).out).toBe(
      [
        'total 132',
        '-rw------- 1 shell shell      6 2023-11-14 22:13 a.txt',
        '-rw-r--r-- 1 shell shell 123456 2023-11-14 22:13 big.bin',
        'drwx------ 2 shell shell   4096 2023-11-14 22:13 dir',
        '-rw------- 1 shell shell      0 2023-11-14 22:13 empty',
        '',
      ].join('\n'),
    )
    expect((await run(d, 'ls /data/local/tmp')).out).toBe('a.txt\nbig.bin\ndir\nempty\n')
    expect((await run(d, 'ls -l /data/local/tmp/a.txt')).out).toBe(
      '-rw------- 1 shell shell 6 2023-11-14 22:13 /data/local/tmp/a.txt\n',
    )
  })

  it('ls errors, and headers when listing several directories', async () => {
    const d = frozen()
    await run(d, 'mkdir -p /data/local/tmp/x /data/local/tmp/y; touch /data/local/tmp/y/f')
    expect(await run(d, 'ls /nope /data/local/tmp/x /data/local/tmp/y')).toEqual({
      status: 1,
      out: 'ls: /nope: No such file or directory\n/data/local/tmp/x:\n\n/data/local/tmp/y:\nf\n',
    })
  })

  it('cat: files, dynamic nodes, errors', async () => {
    const d = frozen()
    expect((await run(d, 'cat /proc/uptime')).out).toBe('3600.00 26784.00\n')
    expect(await run(d, 'cat /nope /data/local/tmp; echo $?')).toEqual({
      status: 0,
      out: 'cat: /nope: No such file or directory\ncat: /data/local/tmp: Is a directory\n1\n',
    })
  })

  it('rm: -f, -r, and toybox errors', async () => {
    const d = frozen()
    await run(d, 'mkdir -p /data/local/tmp/d/e; touch /data/local/tmp/d/e/f /data/local/tmp/g')
    expect(
      (await run(d, 'rm /data/local/tmp/nope; echo $?; rm -f /data/local/tmp/nope; echo $?')).out,
    ).toBe('rm: /data/local/tmp/nope: No such file or directory\n1\n0\n')
    expect((await run(d, 'rm /data/local/tmp/d')).out).toBe(
      'rm: /data/local/tmp/d: Is a directory\n',
    )
    expect(
      (await run(d, 'rm -rf /data/local/tmp/d /data/local/tmp/g; ls /data/local/tmp')).out,
    ).toBe('')
    expect((await run(d, 'rm /system/bin/ls')).out).toBe(
      'rm: /system/bin/ls: Read-only file system\n',
    )
  })

  it('mkdir: -p, exists, missing parent', async () => {
    const d = frozen()
    expect(
      (
        await run(
          d,
          'mkdir /data/local/tmp/a/b; mkdir -p /data/local/tmp/a/b; mkdir /data/local/tmp/a; echo $?',
        )
      ).out,
    ).toBe(
      "mkdir: '/data/local/tmp/a/b': No such file or directory\nmkdir: '/data/local/tmp/a': File exists\n1\n",
    )
  })
})

describe('ps, pidof, kill', () => {
  it('ps -A: toybox header and column widths (Android default fields)', async () => {
    const d = frozen()
    const lines = (await run(d, 'ps -A')).out.split('\n')
    expect(lines[0]).toBe('USER           PID  PPID     VSZ    RSS WCHAN            ADDR S NAME')
    expect(lines[1]).toBe('root             1     0 10871668  3240 do_epoll_wait       0 S init')
    expect(lines).toContain(
      'system        1021   640 19371928 255448 do_epoll_wait      0 S system_server',
    )
    // The shell running `ps` and `ps` itself are listed, children of adbd and of sh.
    const sh = lines.find((l) => l.endsWith(' sh'))
    const ps = lines.find((l) => l.endsWith(' ps'))
    expect(sh).toMatch(/^shell +(\d+) +312 /)
    expect(ps?.split(/ +/)[2]).toBe(sh?.split(/ +/)[1])
  })

  it('ps -A -o PID,NAME', async () => {
    const lines = (await run(frozen(), 'ps -A -o PID,NAME')).out.split('\n')
    expect(lines.slice(0, 3)).toEqual(['  PID NAME', '    1 init', '    2 kthreadd'])
    expect((await run(frozen(), 'ps -o BOGUS')).out).toBe('ps: bad -o BOGUS\n')
  })

  it("kill: signals by name and number; errors as mksh's builtin prints them", async () => {
    const d = frozen()
    const pid = Number((await run(d, 'sleep 60 & echo $!')).out)
    const p = d.processes.get(pid)
    expect(
      (await run(d, 'kill -s FOO 1; kill 999999; kill abc; kill 1; kill; kill -x 1')).out,
    ).toBe(
      [
        "/system/bin/sh: kill: bad signal 'FOO'",
        '/system/bin/sh: kill: 999999: No such process',
        '/system/bin/sh: kill: abc: arguments must be jobs or process IDs',
        '/system/bin/sh: kill: 1: Operation not permitted',
        '/system/bin/sh: kill: usage: kill [-s signame | -signum | -signame] { job | pid | pgrp } ...',
        '/system/bin/sh: kill: -x: unknown option',
        '',
      ].join('\n'),
    )
    expect((await run(d, `kill -9 ${pid}; echo $?`)).out).toBe('0\n')
    expect(await p?.exited).toBe(137)
    expect((await run(d, 'kill -l 15; kill -l TERM')).out).toBe('TERM\n15\n')
  })

  it('pidof: every match in /proc order, -s for one', async () => {
    const d = frozen()
    const a = Number((await run(d, 'sleep 60 & echo $!')).out)
    const b = Number((await run(d, 'sleep 60 & echo $!')).out)
    expect(b).toBeGreaterThan(a)
    expect((await run(d, 'pidof sleep; pidof -s sleep; pidof nothing; echo $?')).out).toBe(
      `${a} ${b}\n${a}\n1\n`,
    )
    await run(d, `kill -9 ${a} ${b}`)
  })

  it('kill -TERM, kill -s INT reach the process as abort reasons', async () => {
    const d = frozen()
    let reason: unknown
    const proc = d.processes.spawn(
      'worker',
      (signal) =>
        new Promise<number>((resolve) => {
          signal.addEventListener('abort', () => {
            reason = signal.reason
            resolve(0)
          })
        }),
    )
    await run(d, `kill -s INT ${proc.pid}`)
    expect(await proc.exited).toBe(0)
    expect(reason).toBe('INT')
  })
})

describe('date, sleep, echo, which, id, uname', () => {
  // Realtime ns since the epoch exceed 2^53, so the contract's `number` keeps them to 256 ns:
  // the start time below is the nearest double to ...123456789, and %N shows what the clock holds.
  it('date formats follow the device realtime clock', async () => {
    const d = frozen()
    expect((await run(d, 'date; date +%s; date +%s%N; date +%s.%N; date +%F_%T')).out).toBe(
      [
        'Tue Nov 14 22:13:20 UTC 2023',
        '1700000000',
        '1700000000123456768',
        '1700000000.123456768',
        '2023-11-14_22:13:20',
        '',
      ].join('\n'),
    )
  })

  it('sleep advances a fast clock exactly (fractional seconds), without waiting', async () => {
    const clock = fastClock()
    const d = createDevice({ serial: 's', clock })
    const t0 = clock.nowNs('boottime')
    expect((await run(d, 'sleep 2.5; sleep 0.25; sleep 1m')).status).toBe(0)
    expect(clock.nowNs('boottime') - t0).toBe(62.75e9)
    expect((await run(d, 'sleep abc')).out).toBe("sleep: Not a number 'abc'\n")
  })

  it('which, id, uname', async () => {
    const d = frozen()
    expect(await run(d, 'which ls getprop nope')).toEqual({
      status: 1,
      out: '/system/bin/ls\n/system/bin/getprop\n',
    })
    expect((await run(d, 'id -u; id -un')).out).toBe('2000\nshell\n')
    expect((await run(d, 'id')).out).toMatch(
      /^uid=2000\(shell\) gid=2000\(shell\) groups=2000\(shell\),.* context=u:r:shell:s0\n$/,
    )
    expect((await run(d, 'uname; uname -m; uname -a')).out).toBe(
      'Linux\naarch64\nLinux localhost 5.10.157-android13-4-00001-g5c5a4a3b8e1c-ab9627331 #1 SMP PREEMPT Tue Feb 14 11:08:52 UTC 2023 aarch64 Toybox\n',
    )
  })

  it('commands registered later appear in /system/bin and are found by the shell', async () => {
    const d = frozen()
    d.commands.set('dumpsys', (inv) => {
      inv.io.write(`args=${inv.argv.slice(1).join(',')} stdin=${Buffer.from(inv.stdin).toString()}`)
      return 3
    })
    expect(await run(d, 'echo in | dumpsys battery reset; echo " $?"; which dumpsys')).toEqual({
      status: 0,
      out: 'args=battery,reset stdin=in\n 3\n/system/bin/dumpsys\n',
    })
    expect(d.fs.stat('/system/bin/dumpsys')?.kind).toBe('file')
  })
})

describe('grep, head, tail, wc in pipelines', () => {
  it('filters like toybox', async () => {
    const d = frozen()
    await run(
      d,
      "for l in alpha beta gamma 'Alpha beta' delta; do echo $l; done > /data/local/tmp/t",
    )
    const f = '/data/local/tmp/t'
    expect(
      (await run(d, `grep alpha ${f}; grep -i -c alpha ${f}; grep -v a ${f}; echo $?`)).out,
    ).toBe('alpha\n2\n1\n')
    expect(
      (
        await run(
          d,
          `grep -E 'ga(m)+a|^d' ${f}; grep 'ga\\(m\\)\\{2\\}' ${f}; grep -n -F 'a b' ${f}`,
        )
      ).out,
    ).toBe('gamma\ndelta\ngamma\n4:Alpha beta\n')
    expect(
      (await run(d, `grep zzz ${f}; echo $?; grep x /nope; echo $?; grep -q beta ${f}; echo $?`))
        .out,
    ).toBe('1\ngrep: /nope: No such file or directory\n2\n0\n')
    expect((await run(d, `head -n 2 ${f}; tail -1 ${f}; cat ${f} | wc -l; wc -c ${f}`)).out).toBe(
      'alpha\nbeta\ndelta\n5\n34 /data/local/tmp/t\n',
    )
    expect((await run(d, 'getprop | grep -c ro.product.model')).out).toBe('1\n')
  })
})

describe('/proc/uptime', () => {
  it('truncates to hundredths like the kernel (100.999 s reads 100.99, not 101.00)', async () => {
    const d = createDevice({
      serial: 'up-1',
      clock: fastClock({ bootOffsetNs: 100_999_999_999 }),
    })
    const [up, idle] = (await run(d, 'cat /proc/uptime')).out.trim().split(' ')
    expect(up).toBe('100.99')
    // 100.999999999 s × 8 CPUs × 0.93 idle = 751.43999… s.
    expect(idle).toBe('751.43')
  })

  it('every printed uptime v satisfies v ≤ t < v + 0.01 for any uptime up to 2^53 ns (property)', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), (ns) => {
        const text = procHundredths(ns)
        expect(text).toMatch(/^\d+\.\d{2}$/)
        const [s = '', cs = ''] = text.split('.')
        // Compare in integer hundredths to keep floating point out of the check.
        const printedCs = BigInt(s) * 100n + BigInt(cs)
        const trueCs = BigInt(ns) / 10_000_000n
        expect(printedCs).toBe(trueCs)
      }),
    )
  })
})
