/**
 * `npx tsx bench/lab.ts [--rounds N] [--json]`: what a lab buys a suite. The same 24 tests (6
 * files; each opens the demo app over adb and measures a window of a 250–900 ms pause, seeded)
 * run with their leases in a real Redis server (redis-server on a free port) on:
 *   A: 1 phone (one virtual lab host at 127.0.0.2), 1 runner;
 *   B: 4 phones on 2 lab hosts (127.0.0.2, 127.0.0.3), 1 runner (one Vitest worker per phone);
 *   C: the same 4 phones, 2 runners at once (`--shard=1/2` and `--shard=2/2`), sharing the pool.
 * Variants alternate round by round (A B C, A B C, …; 3 rounds by default); wall time is spawn to
 * the last runner's exit; medians reported with the ratios to A. The tests open the app over adb,
 * not through Appium: UiAutomator2 runs one session per phone, and two runners' Appium servers do
 * not know of each other's (docs/scale.md). The virtual lab hosts and Redis run on this machine,
 * so with 2 cores the runners compete with the phones they measure: the figures are this
 * machine's, not a lab's. The project is written under bench/ so that `vitest-energy` resolves to
 * this package (dist/: `npm run build` first), and removed at the end.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, mulberry32, toSortedSamples } from '../src/stats/index.js'
import { startVirtualDevice, type VirtualDeviceServer } from '../src/virtual-device/index.js'
import { hasRedis, startRedis } from '../test/lab/_redis.js'

const benchDir = fileURLToPath(new URL('./', import.meta.url))
const vitestBin = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url))
const dist = fileURLToPath(new URL('../dist/src/public/index.js', import.meta.url))

const FILES = 6
const TESTS_PER_FILE = 4

interface Variant {
  readonly key: 'A' | 'B' | 'C'
  readonly label: string
  readonly runners: 1 | 2
}

const variants: readonly Variant[] = [
  { key: 'A', label: '1 phone, 1 runner', runners: 1 },
  { key: 'B', label: '4 phones on 2 hosts, 1 runner', runners: 1 },
  { key: 'C', label: '4 phones on 2 hosts, 2 runners (shards)', runners: 2 },
]

function pauses(seed: number): number[] {
  const random = mulberry32(seed)
  return Array.from({ length: FILES * TESTS_PER_FILE }, () => 250 + Math.round(random() * 650))
}

function testFile(file: number, all: readonly number[]): string {
  const tests = all
    .slice(file * TESTS_PER_FILE, (file + 1) * TESTS_PER_FILE)
    .map((ms, i) =>
      [
        `test('screen ${file + 1} step ${i + 1}', async ({ device, energy }) => {`,
        `  await device.shell(['am', 'start', '-W', '-n', 'com.example.trails/.MainActivity'])`,
        `  await energy.measure(() => new Promise((r) => setTimeout(r, ${ms})))`,
        '})',
      ].join('\n'),
    )
  return [`import { test } from 'vitest-energy'`, '', ...tests, ''].join('\n')
}

const CONFIG = `import { defineConfig } from 'vitest/config'
import { energy } from 'vitest-energy/plugin'

export default defineConfig({
  plugins: [
    energy({
      app: 'com.example.trails',
      adb: JSON.parse(process.env['LAB_ADB'] ?? '[]'),
      appium: false,
    }),
  ],
})
`

interface JsonReport {
  readonly numPassedTests: number
}

/** One Vitest runner: resolves with its exit code, passed tests and stderr. */
function runVitest(
  dir: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  out: string,
): Promise<{ code: number; passed: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [vitestBin, 'run', '--reporter=json', `--outputFile=${out}`, ...args],
      { cwd: dir, env, stdio: ['ignore', 'ignore', 'pipe'] },
    )
    let stderr = ''
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('exit', (status) => {
      void readFile(out, 'utf8')
        .then((text) => (JSON.parse(text) as JsonReport).numPassedTests)
        .catch(() => 0)
        .then((passed) => resolve({ code: status ?? 1, passed, stderr }))
    })
  })
}

async function main(): Promise<void> {
  const json = process.argv.includes('--json')
  const roundsArg = process.argv.indexOf('--rounds')
  const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : 3
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds takes a whole number ≥ 1')
  if (!existsSync(dist)) {
    console.error(
      'dist/ is missing: run `npm run build` first (the project imports vitest-energy).',
    )
    process.exitCode = 1
    return
  }
  if (!hasRedis) {
    console.log('skipped: redis-server is not installed (apt-get install redis-server)')
    return
  }
  const log = (m: string): void => {
    if (!json) console.log(m)
  }
  const all = pauses(29)
  const dir = await mkdtemp(join(benchDir, '.lab-'))
  const redis = await startRedis()
  const wall = new Map<string, number[]>(variants.map((v) => [v.key, []]))
  try {
    await writeFile(join(dir, 'vitest.config.ts'), CONFIG)
    for (let f = 0; f < FILES; f++)
      await writeFile(join(dir, `screen-${f + 1}.test.ts`), testFile(f, all))
    log(`command: npx tsx bench/lab.ts ${process.argv.slice(2).join(' ')}`.trimEnd())
    log(
      `${all.length} tests in ${FILES} files (windows of ${Math.min(...all)}–${Math.max(...all)} ms), leases in Redis, ${rounds} rounds of A B C`,
    )
    for (let round = 1; round <= rounds; round++) {
      for (const variant of variants) {
        // Fresh lab hosts each run: every variant starts from phones that measured nothing yet.
        const hosts: VirtualDeviceServer[] =
          variant.key === 'A'
            ? [await startVirtualDevice({ host: '127.0.0.2', serialPrefix: 'lab', devices: 1 })]
            : [
                await startVirtualDevice({ host: '127.0.0.2', serialPrefix: 'lab', devices: 2 }),
                await startVirtualDevice({ host: '127.0.0.3', serialPrefix: 'lab', devices: 2 }),
              ]
        try {
          const env = {
            ...process.env,
            CI: '1',
            NO_COLOR: '1',
            LAB_ADB: JSON.stringify(hosts.map((h) => ({ host: h.host, port: h.port }))),
            VITEST_ENERGY_LEASES: redis.url,
            VITEST_ENERGY_RUN_ID: `bench-${round}-${variant.key}`,
          }
          const outs = join(dir, `out-${round}-${variant.key}`)
          await mkdir(outs)
          const started = process.hrtime.bigint()
          const results = await Promise.all(
            Array.from({ length: variant.runners }, (_, i) =>
              runVitest(
                dir,
                variant.runners === 1 ? [] : [`--shard=${i + 1}/${variant.runners}`],
                { ...env, TMPDIR: outs },
                join(outs, `report-${i + 1}.json`),
              ),
            ),
          )
          const ms = Number(process.hrtime.bigint() - started) / 1e6
          const passed = results.reduce((sum, r) => sum + r.passed, 0)
          const failed = results.find((r) => r.code !== 0)
          if (failed !== undefined || passed !== all.length)
            throw new Error(
              `${variant.key}: ${passed}/${all.length} passed\n${(failed ?? results[0])?.stderr.slice(-2000) ?? ''}`,
            )
          wall.get(variant.key)?.push(ms)
          log(`  round ${round} ${variant.key}: ${(ms / 1000).toFixed(2)} s`)
        } finally {
          for (const h of hosts) await h.close()
        }
      }
    }
  } finally {
    await redis.stop()
    await rm(dir, { recursive: true, force: true })
  }
  const medianS = (key: string): number => median(toSortedSamples(wall.get(key) ?? [])) / 1000
  const a = medianS('A')
  const rows = variants.map((v) => ({
    variant: v.key,
    label: v.label,
    medianS: medianS(v.key),
    ratioToA: medianS(v.key) / a,
    runsS: (wall.get(v.key) ?? []).map((ms) => ms / 1000),
  }))
  if (json) {
    console.log(JSON.stringify({ tests: all.length, rounds, rows }, null, 2))
    return
  }
  log('')
  log('| variant | suite (median) | ratio to A |')
  log('| --- | --- | --- |')
  for (const r of rows)
    log(`| ${r.variant}: ${r.label} | ${r.medianS.toFixed(2)} s | ${r.ratioToA.toFixed(2)} |`)
}

await main()
