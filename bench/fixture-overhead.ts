/**
 * `npx tsx bench/fixture-overhead.ts [--quick] [--json]`: what the `energy` fixture costs in
 * test-level mode. Runs bench/fixtures/overhead-project (N one-second tests; 50, or 10 with
 * --quick) as a Vitest child process on the virtual device in real time: once without the fixture,
 * once with it (the plugin's defaults: measured 3 s idle baseline, ODPM + simpleperf), once with
 * `baseline: 'none'`, once more without the execution collector (power only), and once without the
 * wait for a reading past each window's end (`endReading: 'extrapolate'`). Prints the suite
 * wall-time ratio (target ≤ 1.05) and the added time per test (target ≤ 50 ms). The project
 * imports `vitest-energy` by name: run `npm run build` first.
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
    const testMs = report.testResults.flatMap((f) => f.assertionResults.map((a) => a.duration ?? 0))
    return { variant, wallMs, passed: report.numPassedTests, total: report.numTotalTests, testMs }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  const mid = Math.floor(s.length / 2)
  return s.length % 2 === 1 ? (s[mid] ?? 0) : ((s[mid - 1] ?? 0) + (s[mid] ?? 0)) / 2
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick')
  const json = process.argv.includes('--json')
  const tests = quick ? 10 : 50
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
  log(`fixture overhead: ${tests} one-second tests, virtual device in real time, 1 worker`)
  const plain = await runSuite('without fixture', tests, { OVERHEAD_FIXTURE: '0' })
  log(`  without fixture: ${(plain.wallMs / 1000).toFixed(2)} s`)
  const measured = await runSuite('fixture, measured baseline (default)', tests, {
    OVERHEAD_FIXTURE: '1',
  })
  log(`  with fixture (default baseline): ${(measured.wallMs / 1000).toFixed(2)} s`)
  const noBaseline = await runSuite("fixture, baseline: 'none'", tests, {
    OVERHEAD_FIXTURE: '1',
    OVERHEAD_BASELINE: 'none',
  })
  log(`  with fixture (baseline none): ${(noBaseline.wallMs / 1000).toFixed(2)} s`)
  const powerOnly = await runSuite("fixture, baseline: 'none', execution: 'none'", tests, {
    OVERHEAD_FIXTURE: '1',
    OVERHEAD_BASELINE: 'none',
    OVERHEAD_EXECUTION: 'none',
  })
  log(`  with fixture (baseline none, power only): ${(powerOnly.wallMs / 1000).toFixed(2)} s`)
  const extrapolated = await runSuite(
    "fixture, baseline: 'none', endReading: 'extrapolate'",
    tests,
    { OVERHEAD_FIXTURE: '1', OVERHEAD_BASELINE: 'none', OVERHEAD_END: 'extrapolate' },
  )
  log(`  with fixture (baseline none, no end wait): ${(extrapolated.wallMs / 1000).toFixed(2)} s`)

  const rows = [measured, noBaseline, powerOnly, extrapolated].map((run) => {
    const ratio = run.wallMs / plain.wallMs
    const addedMsPerTest = (run.wallMs - plain.wallMs) / tests
    // Steady state: the median test, so the one-off idle baseline in the first test is excluded.
    const medianAddedMs = median(run.testMs) - median(plain.testMs)
    return {
      variant: run.variant,
      wallS: run.wallMs / 1000,
      ratio,
      addedMsPerTest,
      medianAddedMs,
      ratioVerdict: ratio <= 1.05 ? 'PASS' : 'MISS',
      addedVerdict: addedMsPerTest <= 50 ? 'PASS' : 'MISS',
    }
  })
  if (json) {
    console.log(JSON.stringify({ mode: quick ? 'quick' : 'full', tests, plain, rows }, null, 2))
    return
  }
  log('')
  log(`| variant | suite wall | ratio (≤ 1.05) | added per test (≤ 50 ms) | median test Δ |`)
  log('|---|---|---|---|---|')
  log(`| without fixture | ${(plain.wallMs / 1000).toFixed(2)} s | 1 | — | — |`)
  for (const r of rows) {
    log(
      `| ${r.variant} | ${r.wallS.toFixed(2)} s | ${r.ratio.toFixed(3)} ${r.ratioVerdict} | ${r.addedMsPerTest.toFixed(0)} ms ${r.addedVerdict} | ${r.medianAddedMs.toFixed(0)} ms |`,
    )
  }
}

await main()
