// Progress output as a user sees it: real Vitest (and Jest) runs of test/fixtures/progress-project
// on the virtual device — three tests on one phone, two of them concurrent in one worker, so that
// tests wait for the phone — in a pseudo-terminal (`script`), replayed onto a screen; and the same
// project through pipes as in CI. The package is resolved to dist/ (built by `npm test`'s pretest).
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stripVTControlCharacters } from 'node:util'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'
import { hasScript, runInTerminal, type TerminalRun } from '../e2e/terminal.js'

const repo = fileURLToPath(new URL('../../', import.meta.url))
const root = join(repo, 'test/fixtures/progress-project')
const vitestBin = join(repo, 'node_modules/vitest/vitest.mjs')
const jestBin = join(repo, 'node_modules/jest/bin/jest.js')
const hasBuild = existsSync(join(repo, 'dist/reporter/progress.js'))
if (!hasScript) console.warn('progress e2e: skipped in a terminal — no `script` (util-linux)')

/** A phone's segment on the status line: its phase and the seconds in it. */
const STATUS =
  /vdev-0001 › [^\r\n]*?(waiting for the phone|running|baseline|recording|stopping|converting samples|pulling the method trace|attributing)( \([^)]*\))? \d+\.\d s/

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vitest-energy-progress-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** The environment of a user at a terminal: no CI variables; the run's files under `dir`. */
function userEnv(name: string, ci: boolean): NodeJS.ProcessEnv {
  const mine = Object.entries(process.env).filter(
    ([key]) => key !== 'CI' && key !== 'GITHUB_ACTIONS' && !key.startsWith('VITEST'),
  )
  return {
    ...Object.fromEntries(mine),
    ...(ci ? { CI: '1' } : {}),
    TERM: 'xterm-256color',
    TMPDIR: dir,
    PROGRESS_ARTIFACTS: join(dir, name, 'artifacts'),
  }
}

function vitestCommand(name: string, reporters: readonly string[]): string {
  return [
    'exec',
    JSON.stringify(process.execPath),
    JSON.stringify(vitestBin),
    'run',
    ...reporters.map((r) => `--reporter=${r}`),
    `--outputFile.energy=${join(dir, name, 'energy.json')}`,
    `--outputFile.energy-html=${join(dir, name, 'report.html')}`,
  ].join(' ')
}

const inTerminal = (name: string, command: string, cwd = root): Promise<TerminalRun> =>
  runInTerminal(command, {
    cwd,
    env: userEnv(name, false),
    typescript: join(dir, `${name}.typescript`),
  })

/** The three tests' rows and the totals of the energy table. */
function expectTable(lines: readonly string[]): void {
  const table = lines.slice(lines.findIndex((l) => l.startsWith(' ENERGY ')))
  expect(table.length, lines.join('\n')).toBeGreaterThan(1)
  for (const name of ['scrolls the feed', 'opens a post', 'syncs in the background'])
    expect(table.some((l) => l.includes(name) && / net \(/.test(l))).toBe(true)
  expect(table.some((l) => /^ Tests +3 passed/.test(l))).toBe(true)
  // Nothing of the progress inside or after it.
  expect(table.filter((l) => STATUS.test(l) || l.includes('⋯'))).toEqual([])
}

describe.skipIf(!hasScript || !hasBuild)('in a terminal', () => {
  test('--reporter=energy: one live line with each phase, gone before the table', async () => {
    const run = await inTerminal('live', vitestCommand('live', ['energy']))
    const raw = stripVTControlCharacters(run.raw)
    expect(run.code, run.screen.join('\n')).toBe(0)
    // The line as drawn (erased and redrawn in place: '\r' and an erase before each frame).
    const frames = raw.split('\r').filter((f) => STATUS.test(f))
    const phases = new Set(frames.map((f) => STATUS.exec(f)![1]))
    for (const phase of ['baseline', 'recording']) expect(phases).toContain(phase)
    expect(frames.some((f) => /· \d waiting|waiting for the phone/.test(f))).toBe(true)
    expect(frames.some((f) => f.includes('recording (repetition 2/2)'))).toBe(true)
    // No frame is a line of its own: the line never scrolls into the output.
    expect(run.screen.filter((l) => STATUS.test(l))).toEqual([])
    expect(raw.search(STATUS)).toBeLessThan(raw.indexOf(' ENERGY '))
    expect(raw.slice(raw.indexOf(' ENERGY ')).search(STATUS)).toBe(-1)
    // Notes stay, above the line, once each; the plain phase lines are not printed.
    expect(
      run.screen.filter((l) => l.includes('⋯ ') && l.includes('raw data kept in')),
    ).toHaveLength(3)
    expect(raw).not.toContain('measuring the idle baseline')
    expectTable(run.screen)
    const report = JSON.parse(
      await readFile(join(dir, 'live', 'energy.json'), 'utf8'),
    ) as EnergyReport
    expect(report.summary.measuredWindows).toBe(4)
  }, 300_000)

  test('beside Vitest’s default reporter: plain lines above its window, no live line', async () => {
    const run = await inTerminal('beside', vitestCommand('beside', ['default', 'energy']))
    const raw = stripVTControlCharacters(run.raw)
    expect(run.code, run.screen.join('\n')).toBe(0)
    expect(raw.search(STATUS)).toBe(-1)
    const once = (text: string): string[] => run.screen.filter((l) => l.includes(text))
    expect(once('measuring the idle baseline of vdev-0001 (1000 ms, once per phone)')).toHaveLength(
      1,
    )
    expect(once('waiting for phone vdev-0001 (held by ').length).toBeGreaterThan(0)
    expect(once('scrolls the feed: repetition 2/2')).toHaveLength(1)
    expect(run.screen.some((l) => /Test Files +2 passed/.test(l))).toBe(true)
    expectTable(run.screen)
  }, 300_000)

  const jestCommand = (config: string): string =>
    `exec ${JSON.stringify(process.execPath)} --experimental-vm-modules ${JSON.stringify(jestBin)} --config ${config} --cacheDirectory=${JSON.stringify(join(dir, 'jest-cache'))}`

  test('Jest with the energy reporter alone: the same live line, gone before the table', async () => {
    const run = await inTerminal('jest', jestCommand('jest.config.mjs'), join(root, 'jest'))
    const raw = stripVTControlCharacters(run.raw)
    expect(run.code, run.screen.join('\n')).toBe(0)
    const phases = new Set(
      raw
        .split('\r')
        .filter((f) => STATUS.test(f))
        .map((f) => STATUS.exec(f)![1]),
    )
    for (const phase of ['baseline', 'recording']) expect(phases).toContain(phase)
    expect(run.screen.filter((l) => STATUS.test(l))).toEqual([])
    expect(raw.slice(raw.indexOf(' ENERGY ')).search(STATUS)).toBe(-1)
    const table = run.screen.slice(run.screen.findIndex((l) => l.startsWith(' ENERGY ')))
    for (const name of ['scrolls the feed', 'syncs in the background'])
      expect(table.some((l) => l.includes(name) && / net \(/.test(l))).toBe(true)
  }, 300_000)

  test('beside Jest’s default reporter: plain lines above its status, no live line', async () => {
    const run = await inTerminal(
      'jest-default',
      jestCommand('jest.default.config.mjs'),
      join(root, 'jest'),
    )
    expect(run.code, run.screen.join('\n')).toBe(0)
    expect(stripVTControlCharacters(run.raw).search(STATUS)).toBe(-1)
    const once = (text: string): string[] => run.screen.filter((l) => l.includes(text))
    expect(once('measuring the idle baseline of vdev-0001 (1000 ms, once per phone)')).toHaveLength(
      1,
    )
    expect(once('scrolls the feed: repetition 2/2')).toHaveLength(1)
    expect(run.screen.some((l) => /^Tests: +2 passed, 2 total/.test(l))).toBe(true)
    expect(run.screen.some((l) => l.startsWith(' ENERGY '))).toBe(true)
    // The global setup's notice starts a line of its own, not after Jest's pre-run message.
    expect(run.screen.some((l) => l.startsWith('vitest-energy: '))).toBe(true)
    expect(run.screen.some((l) => /\.\.\.vitest-energy/.test(l))).toBe(false)
  }, 300_000)
})

describe.skipIf(!hasBuild)('through pipes, in CI', () => {
  test('plain lines on stderr, each once; the table on stdout without them', async () => {
    const { stdout, stderr } = await new Promise<{ stdout: string; stderr: string }>(
      (resolve, reject) =>
        execFile(
          process.execPath,
          [
            vitestBin,
            'run',
            '--reporter=energy',
            `--outputFile.energy=${join(dir, 'ci', 'energy.json')}`,
            `--outputFile.energy-html=${join(dir, 'ci', 'report.html')}`,
          ],
          { cwd: root, env: { ...userEnv('ci', true), NO_COLOR: '1' }, timeout: 240_000 },
          (error, out, err) =>
            error === null ? resolve({ stdout: out, stderr: err }) : reject(error),
        ),
    )
    const lines = stderr.split('\n').filter((l) => l.startsWith('  ⋯ '))
    const count = (text: string): number => lines.filter((l) => l.includes(text)).length
    expect(count('measuring the idle baseline of vdev-0001 (1000 ms, once per phone)')).toBe(1)
    expect(count('waiting for phone vdev-0001 (held by ')).toBeGreaterThan(0)
    expect(count('scrolls the feed: repetition 1/2')).toBe(1)
    expect(count('scrolls the feed: repetition 2/2')).toBe(1)
    expect(count('raw data kept in')).toBe(3)
    // Each line once: no phase is said twice for a test.
    expect(new Set(lines).size).toBe(lines.length)
    expect((stdout + stderr).search(STATUS)).toBe(-1)
    expectTable(stdout.split('\n'))
  }, 300_000)
})
