// The energy fixture end to end: a real Vitest child process runs test/fixtures/energy-project
// (imports `vitest-energy` by name, resolved to dist/ built by `npm test`'s pretest) against the
// virtual device it starts itself, with two workers sharing one phone, then with two phones.
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'
import type { MeasuredEnergyResult } from '../../src/model/index.js'
import { runEnergyProject, type ProjectRun } from './_project-env.js'

const root = fileURLToPath(new URL('../fixtures/energy-project/', import.meta.url))

type Run = ProjectRun

const runProject = (env: Record<string, string>): Promise<Run> =>
  runEnergyProject(root, { env, reporters: ['default'] })

function windows(report: EnergyReport): MeasuredEnergyResult[] {
  return report.tests.flatMap((t) =>
    t.results.filter((r): r is MeasuredEnergyResult => r.status === 'measured'),
  )
}

/** Pairs of windows on the same phone whose intervals intersect. */
function overlaps(all: readonly MeasuredEnergyResult[]): string[] {
  const found: string[] = []
  for (const [i, a] of all.entries()) {
    for (const b of all.slice(i + 1)) {
      if (a.device?.serial !== b.device?.serial) continue
      if (a.window.startNs < b.window.endNs && b.window.startNs < a.window.endNs) {
        found.push(`${a.label} ↔ ${b.label} on ${a.device?.serial}`)
      }
    }
  }
  return found
}

describe('one virtual phone shared by two workers', () => {
  let run: Run
  beforeAll(async () => {
    run = await runProject({ VDEV_DEVICES: '1' })
  }, 300_000)

  test('says it started the virtual device, and fails only the over-budget test', () => {
    expect(run.stdout).toContain('using the virtual device (1 simulated phone)')
    expect(run.code).toBe(1)
    expect(run.report.tests.map((t) => [t.name, t.state]).sort()).toEqual([
      ['a budget the feed cannot meet', 'failed'],
      ['exporting a track', 'passed'],
      ['idle feed, automatic window', 'passed'],
      ['refreshing the feed', 'passed'],
      ['repeated refreshes', 'passed'],
      ['scrolling the feed', 'passed'],
      ['two windows at once on one phone are refused', 'passed'],
    ])
    const failed = run.report.tests.find((t) => t.state === 'failed')
    expect(failed?.errors[0]).toContain('toConsumeLessThan')
  })

  test('measures every window on ODPM rails, with per-method energy from simpleperf', () => {
    const all = windows(run.report)
    expect(all).toHaveLength(9) // 1 + auto + 1 + 1 + 3 repetitions + export + one of two at once
    for (const w of all) {
      expect(w.sources.power, w.label).toBe('odpm')
      expect(w.grossEnergyJ, w.label).toBeGreaterThan(0)
      expect(w.rails.length, w.label).toBeGreaterThan(0)
      // 4614 mAh at 3.85 V: the virtual phone's profile's battery.capacity.
      expect(w.battery?.capacityJ, w.label).toBeCloseTo(4614 * 3.6 * 3.85, 6)
    }
    const scroll = all.find((w) => w.label === 'scrolling the feed')
    expect(scroll?.sources.execution).toBe('simpleperf')
    const bind = scroll?.methods.find((m) => m.method === 'com.example.trails.FeedAdapter.bind')
    expect(bind?.inclusiveEnergyJ).toBeGreaterThan(0)
  })

  test("carries each window's power timeline (its rails' energy), lanes and call tree", () => {
    for (const w of windows(run.report)) {
      const t = w.timeline
      if (t === undefined) throw new Error(`${w.label}: no timeline`)
      expect(t.edgesS.length - 1, w.label).toBeLessThanOrEqual(200)
      expect(t.edgesS, w.label).toContain(0)
      for (const rail of w.rails) {
        const powerW = t.series.find((s) => s.name === rail.rail)?.powerW ?? []
        let insideJ = 0
        powerW.forEach((p, i) => {
          const a = t.edgesS[i] as number
          const b = t.edgesS[i + 1] as number
          if (a >= 0 && b <= w.durationS + 1e-9) insideJ += p * (b - a)
        })
        expect(Math.abs(insideJ - rail.energyJ), `${w.label} ${rail.rail}`).toBeLessThanOrEqual(
          1e-5 * Math.abs(rail.energyJ) + 1e-9,
        )
      }
    }
    const scroll = windows(run.report).find((w) => w.label === 'scrolling the feed')
    expect(scroll?.timeline?.lanes?.map((l) => l.method)).toContain(
      'com.example.trails.FeedAdapter.bind',
    )
    const tree = scroll?.callTree
    expect(tree?.kind).toBe('root')
    const attributedJ = scroll?.attributedEnergyJ ?? NaN
    expect(Math.abs((tree?.inclusiveEnergyJ ?? NaN) - attributedJ)).toBeLessThanOrEqual(
      1e-4 * Math.abs(attributedJ) + 1e-9,
    )
    const names = (n: NonNullable<typeof tree>): string[] => [
      n.name,
      ...(n.children ?? []).flatMap(names),
    ]
    expect(tree === undefined ? [] : names(tree)).toContain('com.example.trails.FeedAdapter.bind')
  })

  test('flags the wake lock the export leaves held', () => {
    const exporting = windows(run.report).find((w) => w.label === 'exporting a track')
    expect(exporting?.warnings.map((w) => w.code)).toContain('W_WAKELOCK_HELD')
    expect(exporting?.warnings.find((w) => w.code === 'W_WAKELOCK_HELD')?.message).toContain(
      "'trails:export'",
    )
  })

  test('never overlaps two windows on the phone, although two workers ran', () => {
    expect(overlaps(windows(run.report))).toEqual([])
  })

  test("records what each test's matchers checked: limits in the JSON and the terminal", () => {
    const limits = (name: string) => run.report.tests.find((t) => t.name === name)?.limits
    expect(
      limits('scrolling the feed')?.map((l) => [l.matcher, l.scope, l.passed, l.target]),
    ).toEqual([
      ['toConsumeLessThan', 'net', true, { kind: 'window', label: 'scrolling the feed' }],
      [
        'toConsumeLessThan',
        'inclusive',
        true,
        {
          kind: 'method',
          label: 'com.example.trails.FeedAdapter.bind',
          window: 'scrolling the feed',
        },
      ],
    ])
    // The battery's capacity without batteryCapacityMah: the virtual phone's profile declares it.
    expect(limits('refreshing the feed')?.map((l) => [l.matcher, l.scope, l.passed])).toEqual([
      ['toConsumeLessThan', 'inclusive', true],
      ['toUseLessThanPercentOfBattery', 'battery', true],
    ])
    expect(limits('repeated refreshes')).toMatchObject([
      { stat: 'upper95', n: 3, limit: 50, unit: 'J', passed: true },
    ])
    expect(limits('a budget the feed cannot meet')).toMatchObject([
      { scope: 'gross', limit: 0.000001, verdict: 'over', passed: false },
    ])
    expect(limits('idle feed, automatic window')).toBeUndefined()
    expect(run.stdout).toMatch(
      /✗ a budget the feed cannot meet .*gross: [\d.]+ [mµ]?J, \d+% of limit < 1\.00 µJ ✗ over/,
    )
  })

  test('prints the energy table', () => {
    expect(run.stdout).toContain(' ENERGY  power: odpm')
    expect(run.stdout).toMatch(/✓ scrolling the feed\s+·/)
    expect(run.stdout).toMatch(/✗ a budget the feed cannot meet/)
  })
})

describe('two virtual phones', () => {
  let run: Run
  beforeAll(async () => {
    run = await runProject({ VDEV_DEVICES: '2' })
  }, 300_000)

  test('spreads the workers over both phones without overlapping windows on either', () => {
    expect(run.stdout).toContain('using the virtual device (2 simulated phones)')
    const all = windows(run.report)
    expect(new Set(all.map((w) => w.device?.serial)).size).toBe(2)
    expect(overlaps(all)).toEqual([])
  })
})

afterAll(() => undefined)
