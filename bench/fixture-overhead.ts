/**
 * `npx tsx bench/fixture-overhead.ts [--quick] [--phones N] [--rounds N] [--lengths random|second]
 * [--json]`: what the `energy` fixture costs in test-level mode. Runs
 * bench/fixtures/overhead-project (N tests in two files: 40, or 10 with --quick; each a seeded
 * random 300–1300 ms by default, not whole numbers of Perfetto's polls, or one second) as a Vitest
 * child process on the virtual device in real time, on 1 phone (or N, one worker each), in
 * alternating rounds (3, or 1 with --quick) of: without the fixture (the plugin configured), with
 * it at the plugin's defaults, with `windowEnd: 'test'` (each test waits for its window's end, the
 * default before issue 29), and with `baseline: 'none'`. Prints the medians' wall-time ratio
 * (target ≤ 1.10) and the added time per test, the median over every test of its duration minus
 * its own without the fixture in the same round (target ≤ 25 ms). The project imports
 * `vitest-energy` by name: run `npm run build` first.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('./fixtures/overhead-project/', import.meta.url))
const vitestBin = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url))
const dist = fileURLToPath(new URL('../dist/src/public/index.js', import.meta.url))

interface JsonReport {
  readonly numPassedTests: number
  readonly numTotalTests: number
  readonly testResults: ReadonlyArray<{
    readonly assertionResults: ReadonlyArray<{ readonly title: string; readonly duration?: number }>
  }>
}

interface SuiteRun {
  readonly variant: string
  /** Host wall time of the child process, spawn to exit, ms. */
  readonly wallMs: number
  readonly passed: number
  readonly total: number
  /** Per-test durations Vitest reported, ms, in test order. */
  readonly testMs: readonly number[]
  /** The same, by test name (each name carries the test's length: the same in every variant). */
  readonly byTest: ReadonlyMap<string, number>
}

async function runSuite(
  variant: string,
  tests: number,
  env: Record<string, string>,
): Promise<SuiteRun> {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-overhead-'))
  const out = join(dir, 'report.json')
  try {
    const started = process.hrtime.bigint()
    const code = await new Promise<number>((resolve, reject) => {
      const child = spawn(
        process.execPath,
        [vitestBin, 'run', '--reporter=json', `--outputFile=${out}`],
        {
          cwd: root,
          env: { ...process.env, CI: '1', NO_COLOR: '1', OVERHEAD_TESTS: String(tests), ...env },
          stdio: ['ignore', 'ignore', 'pipe'],
        },
      )
      let stderr = ''
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString('utf8')
      })
      child.on('error', reject)
      child.on('exit', (status) => {
        if (status !== 0) process.stderr.write(stderr.slice(-2000))
        resolve(status ?? 1)
      })
    })
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6
    const report = JSON.parse(await readFile(out, 'utf8')) as JsonReport
    if (code !== 0 || report.numPassedTests !== tests) {
      throw new Error(
        `${variant}: vitest exited ${code} with ${report.numPassedTests}/${report.numTotalTests} passed`,
      )
    }
    const all = report.testResults.flatMap((f) => f.assertionResults)
    const testMs = all.map((a) => a.duration ?? 0)
    const byTest = new Map(all.map((a) => [a.title, a.duration ?? 0]))
    return {
      variant,
      wallMs,
      passed: report.numPassedTests,
      total: report.numTotalTests,
      testMs,
      byTest,
    }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2
}

interface Variant {
  readonly key: string
  readonly label: string
  readonly env: Record<string, string>
}

const VARIANTS: readonly Variant[] = [
  {
    key: 'plain',
    label: 'without the fixture (plugin configured)',
    env: { OVERHEAD_FIXTURE: '0' },
  },
  { key: 'A', label: '`energy` fixture, plugin defaults', env: { OVERHEAD_FIXTURE: '1' } },
  {
    key: 'C',
    label: "fixture, `windowEnd: 'test'` (the test waits for its window's end)",
    env: { OVERHEAD_FIXTURE: '1', OVERHEAD_WINDOW_END: 'test' },
  },
  {
    key: 'D',
    label: "fixture, `baseline: 'none'`",
    env: { OVERHEAD_FIXTURE: '1', OVERHEAD_BASELINE: 'none' },
  },
]

const TARGET_RATIO = 1.1
const TARGET_ADDED_MS = 25

function intArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name)
  if (i < 0) return fallback
  const value = Number(process.argv[i + 1])
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} takes a whole number ≥ 1`)
  return value
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick')
  const json = process.argv.includes('--json')
  const tests = quick ? 10 : 40
  const phones = intArg('--phones', 1)
  const rounds = intArg('--rounds', quick ? 1 : 3)
  const lengthsArg = process.argv.indexOf('--lengths')
  const lengths = lengthsArg < 0 ? 'random' : process.argv[lengthsArg + 1]
  if (lengths !== 'random' && lengths !== 'second') throw new Error('--lengths: random or second')
  if (!existsSync(dist)) {
    console.error(
      'dist/ is missing: run `npm run build` first (the project imports vitest-energy by name).',
    )
    process.exitCode = 1
    return
  }
  const log = (m: string): void => {
    if (!json) console.log(m)
  }
  log(`command: npx tsx bench/fixture-overhead.ts ${process.argv.slice(2).join(' ')}`.trimEnd())
  log(
    `fixture overhead: ${tests} tests (${lengths === 'random' ? 'random 300–1300 ms' : 'one second'} each) ` +
      `in 2 files, ${phones} virtual phone(s) in real time, ${rounds} round(s) of ${VARIANTS.map((v) => v.key).join(' ')}`,
  )
  const runs = new Map<string, SuiteRun[]>(VARIANTS.map((v) => [v.key, []]))
  for (let round = 1; round <= rounds; round++) {
    for (const v of VARIANTS) {
      const run = await runSuite(v.label, tests, {
        ...v.env,
        OVERHEAD_PHONES: String(phones),
        OVERHEAD_LENGTHS: lengths,
      })
      runs.get(v.key)?.push(run)
      log(
        `  round ${round} ${v.key}: ${(run.wallMs / 1000).toFixed(2)} s, median test ${median(run.testMs).toFixed(0)} ms`,
      )
    }
  }
  const wallMs = (key: string): number => median((runs.get(key) ?? []).map((r) => r.wallMs))
  // Steady state: the median test over every round, so the one-off idle baseline is excluded.
  const testMs = (key: string): number => median((runs.get(key) ?? []).flatMap((r) => r.testMs))
  // Each test against itself without the fixture in the same round (tests differ in length, so
  // a difference of medians moves with which test is the median one): the median of those.
  const pairedAddedMs = (key: string): number => {
    const plain = runs.get('plain') ?? []
    return median(
      (runs.get(key) ?? []).flatMap((run, round) =>
        [...run.byTest].flatMap(([name, ms]) => {
          const without = plain[round]?.byTest.get(name)
          return without === undefined ? [] : [ms - without]
        }),
      ),
    )
  }
  const rows = VARIANTS.filter((v) => v.key !== 'plain').map((v) => {
    const ratio = wallMs(v.key) / wallMs('plain')
    const medianAddedMs = pairedAddedMs(v.key)
    const medianTestDeltaMs = testMs(v.key) - testMs('plain')
    return {
      key: v.key,
      variant: v.label,
      wallS: wallMs(v.key) / 1000,
      runsS: (runs.get(v.key) ?? []).map((r) => r.wallMs / 1000),
      ratio,
      addedMsPerTest: (wallMs(v.key) - wallMs('plain')) / tests,
      medianAddedMs,
      medianTestDeltaMs,
      ratioVerdict: ratio <= TARGET_RATIO ? 'PASS' : 'MISS',
      addedVerdict: medianAddedMs <= TARGET_ADDED_MS ? 'PASS' : 'MISS',
    }
  })
  if (json) {
    const plain = runs.get('plain') ?? []
    console.log(
      JSON.stringify(
        { mode: quick ? 'quick' : 'full', tests, phones, rounds, lengths, plain, rows },
        null,
        2,
      ),
    )
    return
  }
  const plainRuns = (runs.get('plain') ?? []).map((r) => (r.wallMs / 1000).toFixed(2)).join(' / ')
  log('')
  log(
    `| variant | suite wall, median (runs) | ratio (≤ ${TARGET_RATIO}) | added per test (wall Δ ÷ ${tests}) | added per test, median of each test's Δ (≤ ${TARGET_ADDED_MS} ms) | median test Δ |`,
  )
  log('|---|---|---|---|---|---|')
  log(
    `| without the fixture | ${(wallMs('plain') / 1000).toFixed(2)} s (${plainRuns}) | 1 | — | — | — |`,
  )
  for (const r of rows) {
    const verdicts = r.key === 'A'
    log(
      `| ${r.key}: ${r.variant} | ${r.wallS.toFixed(2)} s (${r.runsS.map((x) => x.toFixed(2)).join(' / ')}) | ` +
        `${r.ratio.toFixed(3)}${verdicts ? ` ${r.ratioVerdict}` : ''} | ${r.addedMsPerTest.toFixed(0)} ms | ` +
        `${r.medianAddedMs.toFixed(0)} ms${verdicts ? ` ${r.addedVerdict}` : ''} | ${r.medianTestDeltaMs.toFixed(0)} ms |`,
    )
  }
}

await main()
