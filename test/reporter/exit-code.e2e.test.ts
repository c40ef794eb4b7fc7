// The reporter's own problems fail the run, and Ctrl-C still leaves the JSON report of the tests
// that finished: real `vitest run --reporter=energy` child processes.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, beforeEach, expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'

const fixtures = fileURLToPath(new URL('../fixtures/reporter-project/', import.meta.url))
const vitestBin = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))

interface Run {
  readonly stdout: string
  readonly stderr: string
  /** Exit code (128 + signal number when Vitest exits on a signal). */
  readonly code: number | null
}

/**
 * Runs Vitest in its own process group, as a terminal runs it; `interrupt` is called once it has
 * started and may send the group a signal, as Ctrl-C does.
 */
function vitest(
  project: string,
  args: string[],
  env: Record<string, string> = {},
  interrupt?: (signalGroup: (signal: NodeJS.Signals) => void) => Promise<void>,
): Promise<Run> {
  // The HTML report goes to the test's folder too: nothing of a run is left in the fixture.
  const html = `--outputFile.energy-html=${join(dir, 'report.html')}`
  const child = spawn(process.execPath, [vitestBin, 'run', ...args, html], {
    cwd: join(fixtures, project),
    // TMPDIR: the test's own folder, removed after it. Vitest keeps transformed modules in
    // $TMPDIR/<id>/ and removes them on close, which a Ctrl-C'd run never reaches.
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1', TMPDIR: dir, ...env },
    detached: true,
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => void (stderr += chunk.toString()))
  const done = new Promise<Run>((resolve) =>
    child.on('close', (code) => resolve({ stdout, stderr, code })),
  )
  const pid = child.pid
  if (interrupt !== undefined && pid !== undefined) {
    void interrupt((signal) => process.kill(-pid, signal)).catch(() =>
      process.kill(-pid, 'SIGKILL'),
    )
  }
  return done
}

let dir = ''
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vitest-energy-exit-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
  await rm(join(fixtures, 'problems', 'energy-budgets.json'), { force: true })
})

test('a budget file that cannot be parsed and an output that cannot be written fail the run, each said once with its code', async () => {
  await writeFile(join(fixtures, 'problems', 'energy-budgets.json'), '{ not json')
  const blocked = join(dir, 'a-file')
  await writeFile(blocked, '')
  const run = await vitest('problems', [
    '--reporter=energy',
    `--outputFile.energy=${join(blocked, 'energy.json')}`,
  ])
  expect(run.stdout).toMatch(/✓ opening the feed +· +2\.00 J net/)
  expect(run.code, run.stdout + run.stderr).toBe(1)
  const problems = run.stdout.split('\n').filter((l) => l.startsWith('vitest-energy: '))
  expect(problems).toHaveLength(2)
  expect(problems[0]).toMatch(/^vitest-energy: \[E_BUDGET_FILE_INVALID\] /)
  expect(problems[1]).toMatch(
    /^vitest-energy: \[E_REPORT_OUTPUT_IO\] could not write the JSON report to .*a-file\/energy\.json: /,
  )
  expect(run.stdout + run.stderr).not.toMatch(/^\s+at /m)
}, 120_000)

test('the same run without problems exits 0', async () => {
  const run = await vitest('problems', ['--reporter=energy'])
  expect(run.stdout).not.toContain('vitest-energy:')
  expect(run.code, run.stdout + run.stderr).toBe(0)
}, 120_000)

// Retried: now and then (about 1 run in 3 on a busy 2-core machine) Vitest's worker does not hand
// the finished test's result to the main process before the next test ends, so there is no
// moment at which Ctrl-C leaves a finished test behind; the attempt is then abandoned (SIGKILL)
// and made again. What this test checks — the report written from the exit listener — does not
// depend on it.
test(
  'Ctrl-C: the JSON report of the tests that finished is written, the unfinished ones are pending',
  { retry: 3, timeout: 300_000 },
  async () => {
    const marker = join(dir, 'running')
    const out = join(dir, 'energy.json')
    const run = await vitest(
      'interrupt',
      ['--reporter=energy', '--reporter=./finished-reporter.ts', `--outputFile.energy=${out}`],
      { VITEST_ENERGY_INTERRUPT_MARKER: marker },
      async (signalGroup) => {
        // The main process has the first test's result; the second one is running.
        for (let i = 0; i < 600 && !existsSync(marker); i++) await sleep(100)
        signalGroup(existsSync(marker) ? 'SIGINT' : 'SIGKILL')
      },
    )
    expect(existsSync(marker), 'the main process had the first test’s result within 60 s').toBe(
      true,
    )
    expect(run.code, run.stdout + run.stderr).toBe(130)
    const report = JSON.parse(await readFile(out, 'utf8')) as EnergyReport
    expect(report.interrupted).toBe(true)
    expect(report.tests.map((t) => [t.name, t.state, t.noEnergyReason])).toEqual([
      ['finished before Ctrl-C', 'passed', undefined],
      ['still running at Ctrl-C', 'pending', 'did not finish: the run was interrupted'],
    ])
    expect(report.summary.totalNetEnergyJ).toBeCloseTo(2, 10)
    expect(run.stdout).toMatch(/✓ finished before Ctrl-C +· +2\.00 J net/)
    expect(run.stdout).toContain('Interrupted the run was stopped before it ended')
  },
)

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
