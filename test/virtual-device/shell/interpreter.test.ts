/** The mksh-like interpreter: quoting, expansion, lists, redirections, loops, background jobs. */
import fc from 'fast-check'
import { describe, expect, it, vi } from 'vitest'
import { fastClock } from '../../../src/virtual-device/clock.js'
import { createDevice } from '../../../src/virtual-device/device.js'
import { run } from './_run.js'

const device = () => createDevice({ serial: 'sh-1', clock: fastClock() })

describe('quoting and expansion (as mksh prints it)', () => {
  it.each([
    [`echo 'a  b' "c\\"d" e\\ f`, 'a  b c"d e f\n'],
    [`echo $'tab\\there' $'q\\'q' $'\\x41\\101\\u00e9'`, "tab\there q'q AAé\n"],
    [`echo "a'b" 'a"b' "\\$HOME" '$HOME' "$HOME"`, `a'b a"b $HOME $HOME /\n`],
    [`echo "" '' x`, '  x\n'],
    [`X='1   2'; echo $X; echo "$X"`, '1 2\n1   2\n'],
    [`X=; echo a $X b "$X" c`, 'a b  c\n'],
    [`echo "\\a\\n"`, '\x07\n\n'],
    [`echo -n a; echo -e 'b\\tc'; echo -E 'd\\te'`, 'ab\tc\nd\\te\n'],
    [`echo 'x\\cy' z`, 'x'],
    [`echo $(echo "  in   sub  ") "$(echo "  in  ")"`, 'in sub   in  \n'],
    [`echo \`echo back\`tick`, 'backtick\n'],
    [`echo \${HOME}x $0`, '/x /system/bin/sh\n'],
    [`echo a#b # comment`, 'a#b\n'],
  ])('%s', async (line, expected) => {
    expect((await run(device(), line)).out).toBe(expected)
  })

  it('round-trips any argument quoted the way adbkit quotes it', async () => {
    const d = device()
    await fc.assert(
      fc.asyncProperty(
        fc
          .string({ unit: 'grapheme', maxLength: 24 })
          .filter((s) => !s.includes('\0') && !/^-[neE]+$/.test(s)),
        async (s) => {
          const quoted = `'${s.replace(/'/g, `'"'"'`)}'`
          const r = await run(d, `echo -E ${quoted}`)
          expect(r.out).toBe(`${s}\n`)
        },
      ),
      { numRuns: 150 },
    )
  })
})

describe('status and control flow', () => {
  it('unknown commands fail like Android sh, 127', async () => {
    const r = await run(device(), 'frobnicate --x; echo $?; /system/bin/nope; echo $?')
    expect(r.out).toBe(
      '/system/bin/sh: frobnicate: inaccessible or not found\n127\n/system/bin/sh: /system/bin/nope: inaccessible or not found\n127\n',
    )
  })

  it('; && || ! and exit N', async () => {
    const d = device()
    expect((await run(d, 'false && echo no; true || echo no; ! false && echo yes')).out).toBe(
      'yes\n',
    )
    expect(await run(d, 'echo a; exit 7; echo b')).toEqual({ status: 7, out: 'a\n' })
    expect(await run(d, "sh -c 'exit 3'; echo $?")).toEqual({ status: 0, out: '3\n' })
    expect(await run(d, 'false')).toEqual({ status: 1, out: '' })
    expect(await run(d, 'cat /nope')).toEqual({
      status: 1,
      out: 'cat: /nope: No such file or directory\n',
    })
  })

  it('for, while, until, if, break, continue, subshells and groups', async () => {
    const d = device()
    expect((await run(d, 'for x in a "b c" d; do echo "[$x]"; done')).out).toBe('[a]\n[b c]\n[d]\n')
    expect(
      (
        await run(
          d,
          'i=0; while [ $i -lt 5 ]; do i=$(echo $i | cat); if [ "$i" = 0 ]; then i=1; continue; fi; echo $i; break; done',
        )
      ).out,
    ).toBe('1\n')
    expect((await run(d, 'n=; until [ "$n" = xxx ]; do n=x$n; done; echo $n')).out).toBe('xxx\n')
    expect((await run(d, 'X=1; (X=2; echo $X); echo $X; { echo g; echo h; } | cat')).out).toBe(
      '2\n1\ng\nh\n',
    )
    expect(
      (await run(d, 'if false; then echo a; elif true; then echo b; else echo c; fi')).out,
    ).toBe('b\n')
  })

  it('syntax errors are reported by the shell with status 1', async () => {
    const d = device()
    expect(await run(d, "echo 'open")).toEqual({
      status: 1,
      out: '/system/bin/sh: syntax error: no closing quote\n',
    })
    expect(await run(d, 'do echo')).toEqual({
      status: 1,
      out: "/system/bin/sh: syntax error: 'do' unexpected\n",
    })
    expect((await run(d, 'echo a |')).out).toBe('/system/bin/sh: syntax error: unexpected EOF\n')
  })
})

describe('redirections and pipes', () => {
  it('> >> < 2>&1 2>/dev/null and a read-only target', async () => {
    const d = device()
    const r = await run(
      d,
      'echo one > /data/local/tmp/f; echo two >> /data/local/tmp/f; cat < /data/local/tmp/f; ls /nope 2>/dev/null; echo $?; ls /nope > /data/local/tmp/e 2>&1; cat /data/local/tmp/e',
    )
    expect(r.out).toBe('one\ntwo\n1\nls: /nope: No such file or directory\n')
    expect(await run(d, 'echo x > /system/x')).toEqual({
      status: 1,
      out: "/system/bin/sh: can't create /system/x: Read-only file system\n",
    })
    expect((await run(d, 'echo x > /data/x')).out).toBe(
      "/system/bin/sh: can't create /data/x: Permission denied\n",
    )
    expect((await run(d, 'cat < /nope')).out).toBe(
      "/system/bin/sh: can't open /nope: No such file or directory\n",
    )
  })

  it('pipes feed stdin; pipeline status is the last command', async () => {
    const d = device()
    expect(await run(d, 'getprop ro.product.model | cat | cat')).toEqual({
      status: 0,
      out: 'Pixel 6 (virtual)\n',
    })
    expect((await run(d, 'cat /nope | cat; echo $?')).out).toBe(
      'cat: /nope: No such file or directory\n0\n',
    )
  })
})

describe('output streams while the command runs; abort stops it', () => {
  it('a while loop with sleep delivers output before it ends, and stops on abort', async () => {
    const d = createDevice({ serial: 'stream' })
    const controller = new AbortController()
    const chunks: string[] = []
    const { execShell } = await import('../../../src/virtual-device/shell/index.js')
    const done = execShell(
      d,
      'while true; do echo tick; sleep 0.01; done',
      { write: (c) => chunks.push(Buffer.from(c).toString()), writeErr: () => undefined },
      controller.signal,
    )
    await vi.waitFor(() => expect(chunks.length).toBeGreaterThanOrEqual(3))
    controller.abort()
    expect(await done).toBeGreaterThan(128)
    expect(d.processes.list().filter((p) => p.user === 'shell' && p.name !== 'adbd')).toEqual([])
  })
})

describe('background jobs', () => {
  it('cmd & spawns a process (nothing printed), $! is its pid, kill -INT ends it', async () => {
    const d = createDevice({ serial: 'bg' })
    const r = await run(d, 'sleep 1000 & echo $!')
    const pid = Number(r.out.trim())
    expect(r.status).toBe(0)
    const proc = d.processes.get(pid)
    expect(proc?.name).toBe('sleep')
    expect((await run(d, 'pidof sleep')).out).toBe(`${pid}\n`)
    expect((await run(d, `kill -INT ${pid}; echo $?`)).out).toBe('0\n')
    expect(await proc?.exited).toBe(130)
    expect((await run(d, 'pidof sleep; echo $?')).out).toBe('1\n')
  })

  it('sh is a process of its own ($$ is its pid); exec replaces it: same pid, the command’s name, its signals', async () => {
    const d = createDevice({ serial: 'exec' })
    const outer = await run(d, `echo $$; sh -c 'echo $$; ps -o PID,PPID,NAME -p $$'`)
    const [shellPid, innerPid] = outer.out.split('\n').map(Number)
    expect(innerPid).not.toBe(shellPid)
    expect(outer.out).toContain(`${innerPid} ${String(shellPid).padStart(5)} sh\n`)

    const controller = new AbortController()
    let out = ''
    const { execShell } = await import('../../../src/virtual-device/shell/index.js')
    const done = execShell(
      d,
      `sh -c 'echo $$; exec sleep 1000'`,
      { write: (c) => (out += Buffer.from(c).toString()), writeErr: () => undefined },
      controller.signal,
    )
    await vi.waitFor(() => expect(out).toMatch(/^\d+\n$/))
    const pid = Number(out.trim())
    await vi.waitFor(() => expect(d.processes.get(pid)?.name).toBe('sleep'))
    expect((await run(d, 'pidof sleep')).out).toBe(`${pid}\n`)
    expect((await run(d, `kill -INT ${pid}; echo $?`)).out).toBe('0\n')
    // sleep's status on SIGINT, passed on by the shell that ran `sh -c`.
    expect(await done).toBe(130)
    expect(d.processes.get(pid)).toBeUndefined()
    expect((await run(d, `exec echo replaced; echo never`)).out).toBe('replaced\n')
    expect(await run(d, `exec nothing-here; echo never`)).toEqual({
      status: 127,
      out: '/system/bin/sh: nothing-here: inaccessible or not found\n',
    })
  })

  it('background output is discarded unless redirected', async () => {
    const d = device()
    expect((await run(d, 'echo hidden &')).out).toBe('')
    await run(d, 'echo saved > /data/local/tmp/bg &')
    await vi.waitFor(async () =>
      expect((await run(d, 'cat /data/local/tmp/bg')).out).toBe('saved\n'),
    )
  })
})

describe('pathname expansion, arithmetic, cd', () => {
  it('globs unquoted * ? [..] against the device fs; no match keeps the word', async () => {
    const d = device()
    await run(d, 'cd /data/local/tmp; touch a.trace b.trace c.txt .hidden')
    expect(
      (
        await run(
          d,
          `cd /data/local/tmp; echo *.trace; echo /data/local/tmp/*.t?t; echo "*.trace" '*' nomatch*; echo [ab].trace [!a]*; echo *`,
        )
      ).out,
    ).toBe(
      'a.trace b.trace\n/data/local/tmp/c.txt\n*.trace * nomatch*\na.trace b.trace b.trace c.txt\na.trace b.trace c.txt\n',
    )
    expect((await run(d, 'rm -f /data/local/tmp/*.trace; ls -a /data/local/tmp')).out).toBe(
      '.\n..\n.hidden\nc.txt\n',
    )
  })

  it('$(( )) arithmetic like mksh, with variables; a zero divisor ends the shell', async () => {
    const d = device()
    expect(
      (
        await run(
          d,
          'i=0; while [ $i -lt 3 ]; do echo $((i * 2 + 1)); i=$((i+1)); done; echo $(( (7 % 3) << 2 )) $((0x10 + 010)) $((-5/2)) $((1 && 0 || 2)) "$((3>2))" $(($i + y))',
        )
      ).out,
    ).toBe('1\n3\n5\n4 24 -2 1 1 3\n')
    expect(await run(d, 'echo $((1/0)); echo after')).toEqual({
      status: 1,
      out: '/system/bin/sh: 1/0: zero divisor\n',
    })
    expect((await run(d, 'echo $((2 +))')).out).toBe(
      '/system/bin/sh: 2 +: unexpected end of expression\n',
    )
  })

  it('cd moves the working directory for commands and redirections', async () => {
    const d = device()
    expect(
      (
        await run(
          d,
          'cd /data/local/tmp && echo x > rel && cat rel && ls && pwd; cd /nope; echo $?',
        )
      ).out,
    ).toBe('x\nrel\n/data/local/tmp\n/system/bin/sh: cd: /nope: No such file or directory\n2\n')
    expect(new TextDecoder().decode(d.fs.readFile('/data/local/tmp/rel'))).toBe('x\n')
  })
})
