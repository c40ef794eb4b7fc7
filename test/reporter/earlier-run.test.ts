// runsFromReport(): a test's windows in an earlier run's JSON report, as the regression matcher
// takes them; every way of pointing it wrong is a coded error that says what to do.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import { energyMatchers } from '../../matchers/index.js'
import { runsFromReport } from '../../reporter/earlier-run.js'
import { measuredResult, type MeasuredEnergyResult } from '../../src/model/index.js'
import { RepeatedEnergyRun } from '../../src/session/run.js'
import { energyErrorOf } from '../_energy-error.js'

expect.extend(energyMatchers)

const dir = mkdtempSync(join(tmpdir(), 'earlier-run-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function window(label: string, netEnergyJ: number, cpuJ = netEnergyJ / 2): MeasuredEnergyResult {
  return measuredResult({
    label,
    window: { clock: 'boottime', startNs: 0, endNs: 1_000_000_000 },
    grossEnergyJ: netEnergyJ + 0.5,
    baselinePowerW: 0.5,
    components: [{ component: 'cpu', energyJ: cpuJ }],
    rails: [],
    methods: [],
    sources: { power: 'odpm', sampleCount: 10 },
  })
}

const scrolls = [1.0, 1.02, 0.98, 1.01, 0.99]
const report = {
  schemaVersion: 4,
  tests: [
    {
      file: 'feed.test.ts',
      name: 'feed > scrolling the feed',
      netEnergyJ: 5,
      results: [
        { ...window('idle baseline', 0), idleBaseline: true },
        ...scrolls.map((j, i) => window(`scroll #${i + 1}`, j)),
        window('opening', 3),
        { schemaVersion: 1, status: 'skipped', label: 'later', reason: 'the test ended' },
      ],
    },
    { file: 'map.test.ts', name: 'opening the map', netEnergyJ: 0, results: [] },
  ],
}
const path = join(dir, 'main.json')
writeFileSync(path, JSON.stringify(report))

describe('runsFromReport', () => {
  test("a test's measured windows, its idle baseline and skipped windows left out", () => {
    const runs = runsFromReport(path, 'feed > scrolling the feed')
    expect(runs.netEnergiesJ).toEqual([...scrolls, 3])
    expect(runs.energyRuns.map((r) => r.label)).toEqual([
      'scroll #1',
      'scroll #2',
      'scroll #3',
      'scroll #4',
      'scroll #5',
      'opening',
    ])
  })

  test("one repeat() call's repetitions by their label; the test's file when names repeat", () => {
    expect(
      runsFromReport(path, 'feed > scrolling the feed', { label: 'scroll', file: 'feed.test.ts' })
        .netEnergiesJ,
    ).toEqual(scrolls)
  })

  test('the regression matcher takes them as they are, in any scope the windows have', () => {
    const earlier = runsFromReport(path, 'feed > scrolling the feed', { label: 'scroll' })
    const same = new RepeatedEnergyRun(scrolls.map((j, i) => window(`scroll #${i + 1}`, j)))
    expect(same).toNotRegressFrom(earlier, { maxPct: 10 })
    // 50% more net energy, none of it on the CPU: a regression in net, none in the CPU's scope.
    const worse = new RepeatedEnergyRun(
      scrolls.map((j, i) => window(`scroll #${i + 1}`, j * 1.5, j / 2)),
    )
    expect(worse).not.toNotRegressFrom(earlier, { maxPct: 10 })
    expect(worse).toNotRegressFrom(earlier, { maxPct: 10, scope: 'component:cpu' })
  })

  test('a name that is not there: E_REPORT_TEST_NOT_FOUND with the closest', () => {
    const e = energyErrorOf(() => runsFromReport(path, 'feed > scroling the feed'))
    expect(e.code).toBe('E_REPORT_TEST_NOT_FOUND')
    expect(e.message).toContain("no test named 'feed > scroling the feed'")
    expect(e.message).toContain("Did you mean 'feed > scrolling the feed'?")
    expect(
      energyErrorOf(() => runsFromReport(path, 'opening the map', { file: 'feed.test.ts' })).code,
    ).toBe('E_REPORT_TEST_NOT_FOUND')
  })

  test('a test that measured nothing there, or not under that label: E_REPORT_TEST_NOT_FOUND', () => {
    expect(energyErrorOf(() => runsFromReport(path, 'opening the map')).message).toContain(
      "test 'opening the map' has no measured window",
    )
    expect(
      energyErrorOf(() => runsFromReport(path, 'feed > scrolling the feed', { label: 'nope' }))
        .message,
    ).toContain("no measured window labelled 'nope'")
  })

  test('a file that is missing or not an energy report: E_REPORT_BASELINE_INVALID naming runsFromReport()', () => {
    for (const [file, text] of [
      ['missing.json', undefined],
      ['garbage.json', '{ not json'],
      ['other.json', '{"schemaVersion": 99, "tests": []}'],
    ] as const) {
      const p = join(dir, file)
      if (text !== undefined) writeFileSync(p, text)
      const e = energyErrorOf(() => runsFromReport(p, 'x'))
      expect(e.code, file).toBe('E_REPORT_BASELINE_INVALID')
      expect(e.message, file).toContain('Point `runsFromReport()` at a JSON report')
    }
  })
})
