/**
 * `npx tsx bench/user-project.ts [--quick | --rounds N] [--phones N] [--json]`: what the `energy`
 * fixture costs a new user's project. 40 UI tests of 200–500 ms (seeded random lengths, not whole
 * numbers of Perfetto's 100 ms polls; the same in every variant) in 4 test files, each clicking
 * `~refresh` or `~feed-list` in the demo app through the `driver` fixture, on N virtual phones (2
 * by default) with the plugin's defaults (`energy({ app, virtualDevice: { devices: N } })`, so one
 * Vitest worker per phone). Variants, alternated round by round (A B C D, A B C D, …; 5 rounds by
 * default, 3 with --quick; medians reported): A the tests name `energy` (the automatic window
 * around each test), B the same tests with `driver` only (no window), C = A with
 * `windowEnd: 'test'` (each test waits for its window's end, the default before issue 29), D = A
 * with `baseline: 'none'` (no idle window). Wall time is the Vitest child process, spawn to exit;
 * targets (issue 29): A/B ≤ 1.10, and the median test ≤ 25 ms longer than B's. The projects are
 * written under bench/ so `vitest-energy` resolves to this package by self-reference (dist/: run
 * `npm run build` first), and removed after each run.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { median, mulberry32, toSortedSamples } from '../src/stats/index.js'

const benchDir = fileURLToPath(new URL('./', import.meta.url))
const vitestBin = fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url))
const dist = fileURLToPath(new URL('../dist/src/public/index.js', import.meta.url))

const FILES = 4
const TESTS_PER_FILE = 10
const TARGET_RATIO = 1.1
/** The median test's added time, ms. */
const TARGET_ADDED_MS = 25

interface Variant {
  readonly key: string
  readonly label: string
  /** Whether the tests name the `energy` fixture. */
  readonly energy: boolean
  /** Options after `app` and `virtualDevice` in the plugin call. */
  readonly options: string
}

const variants: readonly Variant[] = [
  {
    key: 'A',
    label: '`driver` + `energy` (automatic window), defaults',
    energy: true,
    options: '',
  },
  { key: 'B', label: '`driver` only (no window)', energy: false, options: '' },
  {
    key: 'C',
    label: "A with `windowEnd: 'test'` (each test waits for its window's end)",
    energy: true,
    options: ", windowEnd: 'test'",
  },
  { key: 'D', label: "A with `baseline: 'none'`", energy: true, options: ", baseline: 'none'" },
]

/** One test: the element it clicks and how long it pauses afterwards (the click takes ≈ 20 ms). */
interface Step {
  readonly element: '~refresh' | '~feed-list'
  readonly pauseMs: number
}

function steps(seed: number): Step[] {
  const random = mulberry32(seed)
  return Array.from({ length: FILES * TESTS_PER_FILE }, () => ({
    element: random() < 0.5 ? '~refresh' : '~feed-list',
    pauseMs: 180 + Math.round(random() * 300),
  }))
}

function testFile(variant: Variant, file: number, all: readonly Step[]): string {
  const fixtures = variant.energy ? '{ driver, energy }' : '{ driver }'
  const tests = all
    .slice(file * TESTS_PER_FILE, (file + 1) * TESTS_PER_FILE)
    .map((s, i) =>
      [
        `test('screen ${file + 1} step ${i + 1}', async (${fixtures}) => {`,
        ...(variant.energy ? ['  void energy // naming it opens the automatic window'] : []),
        `  await driver.$('${s.element}').click()`,
        `  await driver.pause(${s.pauseMs})`,
        '})',
      ].join('\n'),
    )
  return [`import { test } from 'vitest-energy'`, '', ...tests, ''].join('\n')
}

function config(variant: Variant, phones: number): string {
  return [
    `import { defineConfig } from 'vitest/config'`,
    `import { energy } from 'vitest-energy/plugin'`,
    '',
    'export default defineConfig({',
    `  plugins: [energy({ app: 'com.example.trails', virtualDevice: { devices: ${phones} }${variant.options} })],`,
    '})',
    '',
  ].join('\n')
}

interface JsonReport {
  readonly numPassedTests: number
  readonly testResults: ReadonlyArray<{
    readonly assertionResults: ReadonlyArray<{ readonly duration?: number }>
  }>
}

interface SuiteRun {
  /** Host wall time of the Vitest child process, spawn to exit, ms. */
  readonly wallMs: number
  /** The test durations Vitest reported, ms. */
  readonly testMs: readonly number[]
}

/** Writes the variant's project into a fresh folder under bench/, runs it, removes it. */
async function runSuite(variant: Variant, all: readonly Step[], phones: number): Promise<SuiteRun> {
  const dir = await mkdtemp(join(benchDir, '.user-project-'))
  const out = join(dir, 'report.json')
  try {
    await writeFile(join(dir, 'vitest.config.ts'), config(variant, phones))
    for (let f = 0; f < FILES; f++) {
      await writeFile(join(dir, `screen-${f + 1}.test.ts`), testFile(variant, f, all))
    }
    const started = process.hrtime.bigint()
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>(
      (resolve, reject) => {
        const child = spawn(
          process.execPath,
          [vitestBin, 'run', '--reporter=json', `--outputFile=${out}`],
          {
            cwd: dir,
            env: { ...process.env, CI: '1', NO_COLOR: '1' },
            stdio: ['ignore', 'ignore', 'pipe'],
          },
        )
        let err = ''
        child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString('utf8')))
        child.on('error', reject)
        child.on('exit', (status) => resolve({ code: status ?? 1, stderr: err }))
      },
    )
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6
    const report = existsSync(out) ? (JSON.parse(await readFile(out, 'utf8')) as JsonReport) : null
    if (code !== 0 || report?.numPassedTests !== all.length) {
      throw new Error(
        `variant ${variant.key}: vitest exited ${code}, ${report?.numPassedTests ?? 0}/${all.length} passed\n${stderr.slice(-2000)}`,
      )
    }
    const durations = report.testResults.flatMap((f) =>
      f.assertionResults.map((a) => a.duration ?? 0),
    )
    return { wallMs, testMs: durations }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(2)} s`

async function main(): Promise<void> {
  const json = process.argv.includes('--json')
  const roundsArg = process.argv.indexOf('--rounds')
  const quick = process.argv.includes('--quick')
  const rounds = roundsArg > 0 ? Number(process.argv[roundsArg + 1]) : quick ? 3 : 5
  if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds takes a whole number ≥ 1')
  const phonesArg = process.argv.indexOf('--phones')
  const phones = phonesArg > 0 ? Number(process.argv[phonesArg + 1]) : 2
  if (!Number.isInteger(phones) || phones < 1) throw new Error('--phones takes a whole number ≥ 1')
  if (!existsSync(dist)) {
    console.error(
      'dist/ is missing: run `npm run build` first (the projects import vitest-energy).',
    )
    process.exitCode = 1
    return
  }
  const log = (m: string): void => {
    if (!json) console.log(m)
  }
  const all = steps(13)
  const runs = new Map<string, SuiteRun[]>(variants.map((v) => [v.key, []]))
  log(`command: npx tsx bench/user-project.ts ${process.argv.slice(2).join(' ')}`.trimEnd())
  log(
    `${all.length} tests in ${FILES} files, ${phones} virtual phone(s), ${rounds} rounds of ${variants.map((v) => v.key).join(' ')}`,
  )
  for (let round = 1; round <= rounds; round++) {
    for (const variant of variants) {
      const run = await runSuite(variant, all, phones)
      runs.get(variant.key)?.push(run)
      const tests = toSortedSamples(run.testMs)
      log(
        `  round ${round} ${variant.key}: ${seconds(run.wallMs)} (tests ${tests[0].toFixed(0)}–` +
          `${tests[tests.length - 1]?.toFixed(0)} ms, median ${median(tests).toFixed(0)} ms)`,
      )
    }
  }
  // Medians over the rounds (wall) and over every test of every round (test duration).
  const wallMs = (key: string): number =>
    median(toSortedSamples((runs.get(key) ?? []).map((r) => r.wallMs)))
  const testMs = (key: string): number =>
    median(toSortedSamples((runs.get(key) ?? []).flatMap((r) => r.testMs)))
  const rows = variants.map((v) => ({
    key: v.key,
    variant: v.label,
    wallS: wallMs(v.key) / 1000,
    runsS: (runs.get(v.key) ?? []).map((r) => r.wallMs / 1000),
    ratio: wallMs(v.key) / wallMs('B'),
    addedMsPerTest: (wallMs(v.key) - wallMs('B')) / all.length,
    medianTestMs: testMs(v.key),
    medianTestDeltaMs: testMs(v.key) - testMs('B'),
  }))
  if (json) {
    console.log(
      JSON.stringify(
        {
          tests: all.length,
          phones,
          rounds,
          targetRatio: TARGET_RATIO,
          targetAddedMs: TARGET_ADDED_MS,
          rows,
        },
        null,
        2,
      ),
    )
    return
  }
  log('')
  log(
    `| variant | suite wall, median (runs) | ratio to B | added per test (wall Δ ÷ ${all.length}) | median test (Δ to B) |`,
  )
  log('|---|---|---|---|---|')
  for (const r of rows) {
    const verdict = r.key === 'A' ? (r.ratio <= TARGET_RATIO ? ' PASS' : ' **MISS**') : ''
    const addedVerdict =
      r.key === 'A' ? (r.medianTestDeltaMs <= TARGET_ADDED_MS ? ' PASS' : ' **MISS**') : ''
    const runsS = r.runsS.map((s) => s.toFixed(2)).join(' / ')
    log(
      `| ${r.key}: ${r.variant} | ${r.wallS.toFixed(2)} s (${runsS}) | ${r.ratio.toFixed(3)}${verdict} | ` +
        `${r.addedMsPerTest.toFixed(0)} ms | ${r.medianTestMs.toFixed(0)} ms (${r.medianTestDeltaMs >= 0 ? '+' : ''}${r.medianTestDeltaMs.toFixed(0)}${addedVerdict}) |`,
    )
  }
  log(`targets: A/B ≤ ${TARGET_RATIO}, A's median test ≤ ${TARGET_ADDED_MS} ms longer than B's`)
}

await main()
