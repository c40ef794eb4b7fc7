/**
 * The real Debian `adb` client (v41) against our server: `adb -P <port>` always, so it never talks
 * to (or starts) a daemon on 5037. Skipped with a visible notice when /usr/bin/adb is absent.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAdbServer, type AdbServer } from '../../../src/virtual-device/adb/server.js'
import { createDevice } from '../../../src/virtual-device/device.js'
import { ADB_BIN, hasAdb, runAdb } from './_helpers.js'

const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex')

if (!hasAdb) {
  console.warn(`[skipped] ${ADB_BIN} not found: real adb client tests skipped (CI installs it)`)
}

describe.skipIf(!hasAdb).each([1, 4])('real adb client, %i device(s) on one server', (count) => {
  let server: AdbServer
  let dir: string
  const serials = Array.from({ length: count }, (_, i) => `emulator-${5554 + 2 * i}`)

  beforeAll(async () => {
    server = await startAdbServer({ devices: serials.map((serial) => createDevice({ serial })) })
    dir = mkdtempSync(join(tmpdir(), 'vdev-adb-'))
  })
  afterAll(async () => {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('adb devices / devices -l', async () => {
    const plain = await runAdb(server.port, ['devices'])
    expect(plain.code).toBe(0)
    expect(plain.stdout.toString()).toBe(
      `List of devices attached\n${serials.map((s) => `${s}\tdevice\n`).join('')}\n`,
    )
    const long = await runAdb(server.port, ['devices', '-l'])
    expect(long.stdout.toString()).toBe(
      `List of devices attached\n${serials
        .map(
          (s, i) =>
            `${s.padEnd(22)} device usb:1-${i + 1} product:oriole model:Pixel_6__virtual_ device:oriole transport_id:${i + 1}\n`,
        )
        .join('')}\n`,
    )
  })

  it('adb shell: quoting, status-less legacy stream, stderr merged, per-device state', async () => {
    for (const serial of serials) {
      const r = await runAdb(server.port, [
        '-s',
        serial,
        'shell',
        `echo 'a  b' "$(getprop ro.serialno)"; ls /nope; echo "x" > /data/local/tmp/f; cat /data/local/tmp/f`,
      ])
      expect(r.code).toBe(0)
      expect(r.stdout.toString()).toBe(`a  b ${serial}\nls: /nope: No such file or directory\nx\n`)
    }
  })

  it('adb shell quoting torture: the client joins argv with spaces, our sh unquotes like mksh', async () => {
    const r = await runAdb(server.port, [
      '-s',
      serials[0]!,
      'shell',
      `echo 'a  b' "c\\"d" $'x\\ty' e\\ f "$HOME"'$HOME' \\$X`,
    ])
    expect(r.stdout.toString()).toBe('a  b c"d x\ty e f /$HOME $X\n')
    const joined = await runAdb(server.port, ['-s', serials[0]!, 'shell', 'echo', 'a  b', "'c  d'"])
    expect(joined.stdout.toString()).toBe('a b c  d\n')
  })

  it('adb shell without a command is an interactive PTY-like session', async () => {
    const r = await runAdb(server.port, ['-s', serials[0]!, 'shell'], {
      input: 'echo hi\nls /nope\nexit\n',
    })
    expect(r.code).toBe(0)
    expect(r.stdout.toString()).toBe(
      'oriole:/ $ echo hi\r\nhi\r\noriole:/ $ ls /nope\r\nls: /nope: No such file or directory\r\n1|oriole:/ $ exit\r\n',
    )
  })

  it('adb push / pull of a 1.2 MB file is byte-identical; ls -l shows it', async () => {
    const data = Buffer.alloc(1_200_000)
    for (let i = 0; i < data.length; i++) data[i] = (i * 2654435761) >>> 24
    const local = join(dir, `in-${count}.bin`)
    writeFileSync(local, data)
    for (const serial of serials) {
      const push = await runAdb(server.port, [
        '-s',
        serial,
        'push',
        local,
        '/data/local/tmp/in.bin',
      ])
      expect(push.code, push.stderr).toBe(0)
      const out = join(dir, `out-${serial}.bin`)
      const pull = await runAdb(server.port, ['-s', serial, 'pull', '/data/local/tmp/in.bin', out])
      expect(pull.code, pull.stderr).toBe(0)
      expect(sha256(readFileSync(out))).toBe(sha256(data))
      const ls = await runAdb(server.port, ['-s', serial, 'shell', 'ls -l /data/local/tmp/in.bin'])
      expect(ls.stdout.toString()).toMatch(
        /^-rw-r--r-- 1 shell shell 1200000 \d{4}-\d\d-\d\d \d\d:\d\d \/data\/local\/tmp\/in\.bin\n$/,
      )
    }
  })

  it('adb pull of a missing file and an unknown serial fail like a real server', async () => {
    const missing = await runAdb(server.port, [
      '-s',
      serials[0]!,
      'pull',
      '/data/local/tmp/none',
      join(dir, 'none'),
    ])
    expect(missing.code).toBe(1)
    // adb 1.0.41 prints sync errors on stdout, transport errors on stderr.
    expect(missing.stdout.toString()).toBe(
      "adb: error: remote object '/data/local/tmp/none' does not exist\n",
    )
    const unknown = await runAdb(server.port, ['-s', 'no-such', 'shell', 'echo'])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toBe("error: device 'no-such' not found\n")
  })

  it("adb push into a read-only directory reports adbd's error", async () => {
    const local = join(dir, 'small.txt')
    writeFileSync(local, 'hello')
    const r = await runAdb(server.port, ['-s', serials[0]!, 'push', local, '/system/small.txt'])
    expect(r.code).toBe(1)
    expect(r.stdout.toString() + r.stderr).toContain(
      "adb: error: failed to copy '" +
        local +
        "' to '/system/small.txt': remote couldn't create file: Read-only file system",
    )
  })
})
