/**
 * `npm run bench:virtual-device`: the virtual device's ADB server over loopback.
 *   1. shell round trip (adbkit `shell('echo ok')` until close), median of N  — target ≤ 2 ms
 *   2. pull throughput of a 64 MB file via adbkit                          — target ≥ 200 MB/s
 *   3. the same two via the real `adb` client (process start included), for comparison
 * The server runs in a child process (as it does under `vitest-energy virtual-device`), so client
 * and server do not share an event loop. Prints figures and the ratio to the targets. Not a test:
 * nothing here asserts timing.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type * as AdbkitNs from '@devicefarmer/adbkit'
import { startAdbServer } from '../src/virtual-device/adb/server.js'
import { createDevice } from '../src/virtual-device/device.js'

const adbkit = createRequire(import.meta.url)('@devicefarmer/adbkit') as typeof AdbkitNs
const ROUND_TRIPS = Number(process.env['VDEV_BENCH_ROUND_TRIPS'] ?? 300)
const PULL_MB = 64
const PULLS = 5

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] ?? NaN) : ((s[mid - 1] ?? NaN) + (s[mid] ?? NaN)) / 2
}

const msSince = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1e6

const PULL_BYTES = PULL_MB * 1024 * 1024

/** Child mode: serve one device with a 64 MiB file until stdin closes; print the port. */
async function serve(): Promise<void> {
  const device = createDevice({ serial: 'bench-1' })
  const data = new Uint8Array(PULL_BYTES)
  for (let i = 0; i < data.length; i += 4096) data[i] = i & 0xff
  device.fs.writeFile('/data/local/tmp/big.bin', data)
  const server = await startAdbServer({ devices: [device] })
  process.stdout.write(`${server.port}\n`)
  process.stdin.resume()
  process.stdin.on('end', () => void server.close().then(() => process.exit(0)))
}

async function startChild(): Promise<{ port: number; stop: () => void }> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', fileURLToPath(import.meta.url), '--serve'],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  )
  const port = await new Promise<number>((resolve, reject) => {
    let text = ''
    child.stdout.on('data', (c: Buffer) => {
      text += c.toString()
      if (text.includes('\n')) resolve(Number(text.trim()))
    })
    child.on('exit', (code) => reject(new Error(`server child exited with ${code}`)))
  })
  return { port, stop: () => child.stdin.end() }
}

async function main(): Promise<void> {
  const data = { length: PULL_BYTES }
  const child = await startChild()
  const server = { port: child.port, close: async () => child.stop() }
  const client = adbkit.Adb.createClient({
    host: '127.0.0.1',
    port: server.port,
    bin: '/nonexistent-adb',
  })
  const dev = client.getDevice('bench-1')
  console.log(`node ${process.version}, server on 127.0.0.1:${server.port}`)

  // 1. shell round trip
  for (let i = 0; i < 30; i++) await adbkit.Adb.util.readAll(await dev.shell('echo ok'))
  const rtts: number[] = []
  for (let i = 0; i < ROUND_TRIPS; i++) {
    const t0 = process.hrtime.bigint()
    const out = await adbkit.Adb.util.readAll(await dev.shell('echo ok'))
    rtts.push(msSince(t0))
    if (out.toString() !== 'ok\n')
      throw new Error(`unexpected shell output ${JSON.stringify(out.toString())}`)
  }
  const rtt = median(rtts)
  console.log(
    `shell round trip (adbkit, n=${ROUND_TRIPS}): median ${rtt.toFixed(3)} ms, p90 ${[...rtts].sort((a, b) => a - b)[Math.floor(rtts.length * 0.9)]?.toFixed(3)} ms  (target ≤ 2 ms: ${rtt <= 2 ? 'met' : 'MISSED'}, ${(2 / rtt).toFixed(2)}× headroom)`,
  )

  // 2. pull throughput via adbkit
  const rates: number[] = []
  for (let i = 0; i < PULLS; i++) {
    const t0 = process.hrtime.bigint()
    const transfer = await dev.pull('/data/local/tmp/big.bin')
    let bytes = 0
    await new Promise<void>((resolve, reject) => {
      transfer.on('data', (c: Buffer) => {
        bytes += c.length
      })
      transfer.on('end', resolve)
      transfer.on('error', reject)
    })
    if (bytes !== data.length) throw new Error(`pulled ${bytes} bytes, expected ${data.length}`)
    rates.push(bytes / 1e6 / (msSince(t0) / 1e3))
  }
  const rate = median(rates)
  console.log(
    `pull ${PULL_MB} MiB (adbkit, median of ${PULLS}): ${rate.toFixed(0)} MB/s  (target ≥ 200 MB/s: ${rate >= 200 ? 'met' : 'MISSED'}, ${(rate / 200).toFixed(2)}× target)`,
  )

  // 3. the real adb client, for comparison
  if (!existsSync('/usr/bin/adb')) {
    console.log('real adb client: /usr/bin/adb not found, skipped')
  } else {
    const adb = (args: string[]): number => {
      const t0 = process.hrtime.bigint()
      const r = spawnSync('/usr/bin/adb', ['-P', String(server.port), '-s', 'bench-1', ...args], {
        encoding: 'buffer',
      })
      if (r.status !== 0) throw new Error(`adb ${args.join(' ')} failed: ${r.stderr.toString()}`)
      return msSince(t0)
    }
    const adbRtts: number[] = []
    for (let i = 0; i < 30; i++) adbRtts.push(adb(['shell', 'echo ok']))
    console.log(
      `shell round trip (real adb, process start included, n=30): median ${median(adbRtts).toFixed(2)} ms`,
    )
    const dir = mkdtempSync(join(tmpdir(), 'vdev-bench-'))
    try {
      const adbRates: number[] = []
      for (let i = 0; i < 3; i++) {
        const out = join(dir, 'big.bin')
        const ms = adb(['pull', '/data/local/tmp/big.bin', out])
        if (statSync(out).size !== data.length) throw new Error('real adb pulled a wrong size')
        adbRates.push(data.length / 1e6 / (ms / 1e3))
      }
      console.log(
        `pull ${PULL_MB} MiB (real adb, to disk, median of 3): ${median(adbRates).toFixed(0)} MB/s`,
      )
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  await server.close()
}

if (process.argv.includes('--serve')) await serve()
else await main()
