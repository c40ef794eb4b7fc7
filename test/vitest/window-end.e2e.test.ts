// The automatic window's end read in the background (`windowEnd: 'background'`, the default): a
// real Vitest child process runs test/fixtures/window-end-project on the virtual device. Each
// test's energy must reach the report although the test ended before its window was read; a
// window that cannot be read must fail the run, naming its test, without failing the test or
// losing the others; and windows must never overlap although the next test starts at once.
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { ReportEntry } from '../../reporter/report.js'
import type { MeasuredEnergyResult } from '../../src/model/index.js'
import { runEnergyProject, type ProjectRun } from './_project-env.js'

const root = fileURLToPath(new URL('../fixtures/window-end-project/', import.meta.url))
type Run = ProjectRun
const runProject = (env: Record<string, string>): Promise<Run> => runEnergyProject(root, { env })

function entry(run: Run, name: string): ReportEntry {
  const found = run.report.tests.find((t) => t.name === name)
  if (found === undefined) throw new Error(`no report entry for '${name}'`)
  return found
}

function measured(e: ReportEntry): MeasuredEnergyResult[] {
  return e.results.filter((r): r is MeasuredEnergyResult => r.status === 'measured')
}

const PAUSES = [130, 170, 90, 240, 60, 310]

describe("windowEnd: 'background' (the default)", () => {
  let run: Run
  beforeAll(async () => {
    run = await runProject({})
  }, 300_000)

  test('every test passed, and each brought its energy to the report with its file', () => {
    for (const ms of PAUSES) {
      const e = entry(run, `pause ${ms} ms`)
      expect(e.state, e.name).toBe('passed')
      const [w] = measured(e)
      expect(w, e.name).toBeDefined()
      // The window spans the test's pause, not the next test's.
      const s = (w!.window.endNs - w!.window.startNs) / 1e9
      // Within the host → phone clock mapping's uncertainty (a few ms).
      expect(s, e.name).toBeGreaterThanOrEqual(ms / 1000 - 0.005)
      expect(s, e.name).toBeLessThan(ms / 1000 + 0.3)
      expect(w!.grossEnergyJ, e.name).toBeGreaterThan(0)
    }
  })

  test('windows follow each other on the phone and never overlap', () => {
    const windows = PAUSES.map((ms) => measured(entry(run, `pause ${ms} ms`))[0]!)
    for (let i = 1; i < windows.length; i++) {
      expect(windows[i]!.window.startNs).toBeGreaterThan(windows[i - 1]!.window.endNs)
    }
  })

  test("a radio one test left on is the next test's carried-over energy, though the phone never left the file", () => {
    const [w] = measured(entry(run, 'waits after the sync'))
    const carried = w?.timeline?.carriedIn?.find((c) => c.component === 'cellular')
    expect(carried, run.output).toMatchObject({
      method: 'com.example.trails.SyncManager.syncAll',
      test: 'carried.test.ts › syncs over cellular',
    })
    expect(w!.carriedOverJ).toBeCloseTo(carried!.energyJ, 9)
    expect(w!.carriedOverJ).toBeGreaterThan(0)
  })

  test('a window lost after its test ended fails the run, naming the test, and nothing else is lost', () => {
    expect(run.code).toBe(1)
    const lost = entry(run, 'measured after it ended')
    // The test itself passed: its body and hooks did.
    expect(lost.state).toBe('passed')
    expect(lost.results.map((r) => r.status)).toEqual(['failed'])
    const failure = lost.results[0]
    expect(failure?.status === 'failed' ? failure.error.code : undefined).toBe(
      'E_COLLECTOR_RECORDER_FAILED',
    )
    // Printed once (the energy reporter's only run here), as the file's error, with the test's
    // name and what to check.
    const said = run.output.match(
      /the energy window of 'measured after it ended' could not be read after the test ended/g,
    )
    expect(said, run.output).toHaveLength(1)
    expect(run.output).toMatch(/\[E_COLLECTOR_RECORDER_FAILED\].*empty trace/)
    expect(run.output).toMatch(/→ .*adb shell ps -A/)
    expect(run.output).not.toMatch(/at catchUpFile|behind\.js:\d+/)
    // The tests after it measured as usual.
    expect(entry(run, 'kills the recorders').state).toBe('passed')
    expect(measured(entry(run, 'measured after the kill'))).toHaveLength(1)
  })
})

describe("windowEnd: 'test'", () => {
  let run: Run
  beforeAll(async () => {
    run = await runProject({ WINDOW_END: 'test' })
  }, 300_000)

  test('each window is read before its test ends, so the kill in the next test finds nothing of it', () => {
    expect(run.code, run.output).toBe(0)
    expect(measured(entry(run, 'measured after it ended'))).toHaveLength(1)
    for (const ms of PAUSES) expect(measured(entry(run, `pause ${ms} ms`))).toHaveLength(1)
  })
})

describe('a run stopped (Ctrl-C) before the file ends', () => {
  let run: Run
  beforeAll(async () => {
    run = await runEnergyProject(root, { env: { ONLY: 'interrupted.test.ts' }, interrupt: true })
  }, 300_000)

  test("keeps the energy of every test whose window's end was read, and says the run was stopped", () => {
    for (const ms of [120, 200, 160]) {
      const e = entry(run, `finished ${ms} ms`)
      expect(e.state, run.output).toBe('passed')
      const [w] = measured(e)
      expect(w, `${e.name}\n${run.output}`).toBeDefined()
      expect((w!.window.endNs - w!.window.startNs) / 1e9).toBeGreaterThanOrEqual(ms / 1000 - 0.005)
    }
    expect(run.output).toMatch(/Interrupted/)
    expect(entry(run, 'still running when the run is stopped').state).not.toBe('passed')
  })
})

afterAll(async () => {
  await rm(join(root, '.vitest-energy'), { recursive: true, force: true })
})
