// Each window's timeline and call tree on their way to the reports: the summary in task.meta keeps
// them to the digits they mean (the energy still adds up), the JSON report (schema version 4)
// validates with them and reads baselines of versions 1–4, and the HTML report embeds them within
// its byte budget in the order a reviewer opens tests.
import { readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import { describe, expect, test } from 'vitest'
import { parseBaselineReport } from '../../reporter/baseline.js'
import { htmlData, type HtmlMeasuredWindow } from '../../reporter/html/data.js'
import { renderJson } from '../../reporter/json.js'
import { buildEnergyReport, type EnergyReport, type ReportEntry } from '../../reporter/report.js'
import { railCurve } from '../../src/attribution/curve.js'
import { thinPower } from '../../src/attribution/timeline.js'
import {
  measuredResult,
  methodEnergy,
  summarize,
  type MeasuredEnergyResult,
  type RailSeries,
} from '../../src/model/index.js'
import { windowDetail } from './html/project/_energy.js'

function window(label: string, grossEnergyJ: number): MeasuredEnergyResult {
  const w = measuredResult({
    label,
    window: { clock: 'boottime', startNs: 7e12, endNs: 7e12 + 2e9 },
    grossEnergyJ,
    baselinePowerW: 0.2,
    components: [],
    rails: [
      { rail: 'S4M_VDD_CPUCL0', subsystem: 'CPU(LITTLE)', energyJ: grossEnergyJ * 0.4 },
      { rail: 'S5M_VDD_INT', subsystem: 'Display', energyJ: grossEnergyJ * 0.6 },
    ],
    methods: [
      methodEnergy({
        method: 'com.example.trails.FeedAdapter.bind',
        attribution: 'sampling',
        localEnergyJ: grossEnergyJ / 4,
        nonLocalEnergyJ: 0,
        asyncEnergyJ: grossEnergyJ / 10,
      }),
      methodEnergy({
        method: 'com.example.trails.db.FeedDao.query',
        attribution: 'sampling',
        localEnergyJ: grossEnergyJ / 8,
        nonLocalEnergyJ: 0,
      }),
    ],
    sources: { power: 'odpm', execution: 'simpleperf', sampleCount: 20, sensorRateHz: 10 },
    warnings: [],
  })
  return { ...w, ...windowDetail(w) }
}

const entry = (
  name: string,
  grossJ: number,
  state: 'passed' | 'failed' = 'passed',
): ReportEntry => ({
  file: 'feed.test.ts',
  name,
  state,
  errors: [],
  results: summarize([window(name, grossJ)]).results,
})

describe('the summary in task.meta', () => {
  test('keeps 6 significant digits of power: each rail’s energy in the window within 10⁻⁶', () => {
    // Readings at odd times and odd energies: full-precision figures everywhere.
    const readings = Array.from({ length: 400 }, (_, i) => ({
      tNs: 1e9 + i * 10_012_345 + (i % 7) * 1234,
      energyJ: i * 0.0123456789 + Math.sin(i) * 1e-3 + 1e-3 * i,
    }))
    const rail: RailSeries = {
      kind: 'cumulative',
      rail: 'R',
      source: 'odpm',
      clock: 'boottime',
      readings,
    }
    const w = { clock: 'boottime' as const, startNs: 1.5e9, endNs: 4.2345678e9 }
    const base = window('x', 1)
    const full = { ...base, window: w, timeline: thinPower([rail], w).timeline }
    const kept = summarize([full]).results[0] as MeasuredEnergyResult
    const t = kept.timeline
    if (t === undefined) throw new Error('no timeline')
    expect(
      t.series[0]?.powerW.every((p) => String(p).replace(/^0\.0*|\.|-/g, '').length <= 6),
    ).toBe(true)
    let insideJ = 0
    t.series[0]?.powerW.forEach((p, i) => {
      const a = t.edgesS[i] as number
      const b = t.edgesS[i + 1] as number
      if (a >= 0 && b <= (w.endNs - w.startNs) / 1e9 + 1e-9) insideJ += p * (b - a)
    })
    const truthJ = railCurve(rail).energyJ(w.startNs, w.endNs)
    expect(Math.abs(insideJ - truthJ) / truthJ).toBeLessThan(1e-6)
  })

  test('keeps the call tree’s shape; its energies to 6 significant digits', () => {
    const w = window('x', 1 / 3)
    const kept = summarize([w]).results[0] as MeasuredEnergyResult
    const names = (n: NonNullable<MeasuredEnergyResult['callTree']>): string[] => [
      n.name,
      ...(n.children ?? []).flatMap(names),
    ]
    expect(
      names(kept.callTree ?? { name: '', kind: 'root', selfEnergyJ: 0, inclusiveEnergyJ: 0 }),
    ).toEqual(names(w.callTree ?? { name: '', kind: 'root', selfEnergyJ: 0, inclusiveEnergyJ: 0 }))
    expect(kept.callTree?.inclusiveEnergyJ).toBe(
      Number((w.callTree?.inclusiveEnergyJ ?? NaN).toPrecision(6)),
    )
    // The root holds what the methods were charged with: local and asynchronous energy.
    expect(kept.callTree?.inclusiveEnergyJ).toBeCloseTo(w.attributedEnergyJ, 6)
  })
})

describe('the JSON report, schema version 4', () => {
  const report = buildEnergyReport([entry('opening the feed', 2), entry('scrolling', 1)])
  const schema = JSON.parse(
    readFileSync(new URL('../../reporter/energy-report.schema.json', import.meta.url), 'utf8'),
  ) as object
  const validate = new Ajv({ allErrors: true, strict: true }).compile(schema)

  test('validates with each window’s timeline and call tree; the schema bounds them', () => {
    const json = JSON.parse(renderJson(report)) as EnergyReport
    expect(json.schemaVersion).toBe(4)
    const w = json.tests[0]?.results[0] as MeasuredEnergyResult
    expect(w.timeline?.series.map((s) => s.name)).toEqual(['S4M_VDD_CPUCL0', 'S5M_VDD_INT'])
    expect(w.callTree?.kind).toBe('root')
    expect(validate(json), JSON.stringify(validate.errors)).toBe(true)
    const tooMany = structuredClone(json) as unknown as {
      tests: Array<{ results: Array<{ timeline: { series: Array<{ powerW: number[] }> } }> }>
    }
    const series = tooMany.tests[0]?.results[0]?.timeline.series[0]
    if (series !== undefined) series.powerW = Array.from({ length: 201 }, () => 1)
    expect(validate(tooMany)).toBe(false)
  })

  test('a baseline of version 4 is read, and of versions 1–3 still; 5 is refused', () => {
    const json = renderJson(report)
    expect(parseBaselineReport(json, 'v4.json').tests).toHaveLength(2)
    for (const version of [1, 2, 3]) {
      const old = JSON.stringify({
        schemaVersion: version,
        tests: [{ file: 'feed.test.ts', name: 'opening the feed', netEnergyJ: 1.5, results: [] }],
      })
      expect(parseBaselineReport(old, `v${version}.json`).tests[0]?.netEnergyJ).toBe(1.5)
    }
    expect(() => parseBaselineReport('{"schemaVersion": 5, "tests": []}', 'v5.json')).toThrow(
      'schemaVersion 5 is not supported (this build reads 1, 2, 3, 4)',
    )
  })
})

describe('the HTML report’s timelines and trees', () => {
  const entries = [
    entry('small', 1),
    entry('hungriest', 5),
    entry('failed', 0.5, 'failed'),
    entry('middle', 3),
  ]
  const report = buildEnergyReport(entries)
  const windowOf = (data: ReturnType<typeof htmlData>, name: string): HtmlMeasuredWindow =>
    data.tests.find((t) => t.name === name)?.windows[0] as HtmlMeasuredWindow

  test('embeds them compactly: edges, 4-digit powers, lanes, the tree by string references', () => {
    const data = htmlData(report)
    const w = windowOf(data, 'middle')
    const source = report.tests.find((t) => t.name === 'middle')?.results[0] as MeasuredEnergyResult
    expect(w.timeline?.edgesS).toEqual(source.timeline?.edgesS)
    expect(w.timeline?.series[0]?.[2]).toEqual(
      source.timeline?.series[0]?.powerW.map((p) => Number(p.toPrecision(4))),
    )
    expect(w.timeline?.lanes?.map(([m]) => data.strings[m])).toEqual(
      source.timeline?.lanes?.map((l) => l.method),
    )
    const [name, kind, , children] = w.tree ?? []
    expect([data.strings[name ?? -1], data.strings[kind ?? -1]]).toEqual([
      'attributed to methods',
      'root',
    ])
    expect(children?.map((c) => data.strings[c[0]])).toEqual(
      source.callTree?.children?.map((c) => c.name),
    )
  })

  test('within the byte budget: failed tests first, then by net energy; the rest say where it is', () => {
    const order = ['failed', 'hungriest', 'middle', 'small']
    const seen = new Set<number>()
    for (let budget = 0; budget <= 40_000; budget += 250) {
      const data = htmlData(report, { detailBudgetBytes: budget })
      const has = order.map((name) => windowOf(data, name).timeline !== undefined)
      const n = has.filter(Boolean).length
      // Always the first n in the order a reviewer opens them; the others say where it is.
      expect(has).toEqual(order.map((_, k) => k < n))
      order.forEach((name, k) =>
        expect(windowOf(data, name).detailOmitted).toBe(k < n ? undefined : true),
      )
      seen.add(n)
    }
    expect([...seen].sort()).toEqual([0, 1, 2, 3, 4])
    expect(windowOf(htmlData(report), 'small').timeline).toBeDefined()
  })
})
