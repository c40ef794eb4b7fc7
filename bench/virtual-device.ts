/**
 * `npm run bench:virtual-device`: the virtual device's ADB server over loopback.
 *   1. shell round trip (adbkit `shell('echo ok')` until close), median of N  — target ≤ 2 ms
 *   2. pull throughput of a 64 MB file via adbkit                          — target ≥ 200 MB/s
 *   3. the same two via the real `adb` client (process start included), for comparison
 *   4. the simulation (in this process, phone physics, fast clock): what a window's reads cost —
 *      the Perfetto trace (ODPM rails and battery every 100 ms, sched_switch, cpu_frequency) and
 *      the ground truth — early and late in a long session, and for one 60 s window
 * The server runs in a child process (as it does under `vitest-energy virtual-device`), so client
 * and server do not share an event loop. Prints figures and the ratio to the targets. Not a test:
 * nothing here asserts timing. `--sim` runs step 4 only.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type * as AdbkitNs from '@devicefarmer/adbkit'
import { parsePerfettoTextConfig } from '../src/formats/perfetto/index.js'
import { startAdbServer } from '../src/virtual-device/adb/server.js'
import { fastClock } from '../src/virtual-device/clock.js'
import { powerTraceBytes } from '../src/virtual-device/commands/perfetto.js'
import { createDevice } from '../src/virtual-device/device.js'
import { DEMO_APP_MODEL } from '../src/virtual-device/sim/demo-app.js'
import { createSimPhone } from '../src/virtual-device/sim/phone.js'
import { defaultPowerProfile } from '../src/virtual-device/sim/power-model.js'

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

const SIM_WINDOWS = Number(process.env['VDEV_BENCH_SIM_WINDOWS'] ?? 40)
/** What the ODPM collector asks of perfetto, at its shortest poll. */
const SIM_TRACE_CONFIG = parsePerfettoTextConfig(`
buffers { size_kb: 65536 }
data_sources { config { name: "android.power" android_power_config {
  battery_poll_ms: 100 collect_power_rails: true battery_counters: BATTERY_COUNTER_CHARGE } } }
data_sources { config { name: "linux.ftrace" ftrace_config {
  ftrace_events: "sched/sched_switch" ftrace_events: "power/cpu_frequency" } } }
`)

/**
 * One phone-physics session of `windows` windows, each `taps` scrolls of the demo app's feed
 * 500 ms apart; after each, the window's trace and ground truth. CPU ms per window (this process,
 * so the figures hold under a machine's other load), first and last ten windows.
 */
function simSession(
  windows: number,
  taps: number,
): { first: number; last: number; slices: number } {
  const clock = fastClock({ realtimeStartNs: 1_700_000_000_000_000_000 })
  const phone = createSimPhone({
    app: DEMO_APP_MODEL,
    powerProfile: defaultPowerProfile(),
    seed: 3,
    clock,
    physics: 'phone',
  })
  const sim = phone.sim
  sim.launch(4242)
  const feed = sim.currentScreen()?.widgets.find((w) => w.contentDesc === 'feed-list')
  if (feed === undefined) throw new Error('the demo app has no feed list')
  const [left, top, right, bottom] = feed.bounds
  const cpuMs: number[] = []
  for (let w = 0; w < windows; w++) {
    const startNs = clock.nowNs('boottime')
    for (let i = 0; i < taps; i++) {
      sim.tap((left + right) / 2, (top + bottom) / 2)
      clock.advance(500e6)
    }
    const stopNs = clock.nowNs('boottime')
    const before = process.cpuUsage()
    powerTraceBytes(phone, SIM_TRACE_CONFIG, startNs, stopNs)
    sim.groundTruth(startNs, stopNs)
    const used = process.cpuUsage(before)
    cpuMs.push((used.user + used.system) / 1e3)
  }
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length)
  return {
    first: mean(cpuMs.slice(0, 10)),
    last: mean(cpuMs.slice(-10)),
    slices: sim.slices.length,
  }
}

function simulationBench(): void {
  const long = simSession(SIM_WINDOWS, 10)
  console.log(
    `simulation, ${SIM_WINDOWS} windows of 5 s (${long.slices} slices): trace + ground truth ${long.first.toFixed(1)} ms CPU per window in the first 10, ${long.last.toFixed(1)} ms in the last 10`,
  )
  const one = simSession(1, 120)
  console.log(
    `simulation, one 60 s window (${one.slices} slices): trace + ground truth ${one.first.toFixed(0)} ms CPU`,
  )
}

if (process.argv.includes('--serve')) await serve()
else if (process.argv.includes('--sim')) simulationBench()
else {
  await main()
  simulationBench()
}
