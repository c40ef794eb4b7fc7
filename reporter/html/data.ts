/**
 * What the HTML report embeds: the EnergyReport in a compact form the page reads back with
 * `JSON.parse`. Every test keeps its figures, windows, rails and methods; repeated strings
 * (method, rail and file names, warning messages) are stored once in `strings` and referred to by
 * index, per-method figures are tuples, and figures keep 6 significant digits (the page shows 3;
 * the JSON report keeps full precision), timelines' powers 4. Windows' timelines and call trees
 * are embedded within `DETAIL_BUDGET_BYTES`. Version 2 (1 had no timelines or trees), read only by
 * `client/app.ts` of the same build.
 */
import { repetitionGroups, type BudgetFile } from '../../src/budgets/index.js'
import {
  describeMethodEnergy,
  limitUse,
  workWindows,
  type CallTreeNode,
  type EnergyResult,
  type MethodColor,
  type PowerTimeline,
} from '../../src/model/index.js'
import { describeLimit, limitBound, limitQualifier, primaryLimit } from '../limits.js'
import type {
  EnergyReport,
  ReportBudgets,
  ReportedBudget,
  ReportedDelta,
  ReportedFailure,
  ReportedState,
  ReportedSuiteFailure,
  ReportedTest,
} from '../report.js'
import { describeCpuModel, deviceLabel } from '../report.js'

export const HTML_DATA_VERSION = 2 as const

/** An index into `HtmlData.strings`. */
export type StringRef = number

export interface HtmlData {
  readonly version: typeof HTML_DATA_VERSION
  readonly strings: readonly string[]
  /** When the report was written (ISO 8601), when the writer gave it. */
  readonly createdAt?: string
  readonly interrupted: boolean
  readonly summary: EnergyReport['summary']
  /** Each phone without rails, in words (`describeCpuModel`): its calibration and the run's fit. */
  readonly cpuModel?: readonly string[]
  readonly tests: readonly HtmlTest[]
  readonly suiteFailures: readonly ReportedSuiteFailure[]
  readonly unhandledErrors: readonly ReportedFailure[]
  readonly budgets?: HtmlBudgets
  readonly baseline?: HtmlBaseline
  readonly classification?: HtmlClassification
}

export interface HtmlTest {
  /** Into `strings`: a run has far fewer files than tests. */
  readonly file: StringRef
  readonly name: string
  readonly state: ReportedState
  readonly expectedToFail?: true
  readonly failure?: ReportedFailure
  /** Omitted when the test threw nothing. */
  readonly errors?: readonly string[]
  readonly noEnergyReason?: string
  readonly netEnergyJ: number
  /**
   * `ReportedTest.ownEnergyJ`, the figure the test is judged by (and ranked by), when it is not
   * `netEnergyJ`: another test left a radio or the GPS on in the test's windows.
   */
  readonly ownEnergyJ?: number
  readonly grossEnergyJ: number
  readonly durationS: number
  /** `ReportedTest.budgetFigure`: value, its 95% interval when known, repetitions. */
  readonly budgetFigure?: {
    readonly valueJ: number
    readonly lowJ?: number
    readonly highJ?: number
    readonly n: number
    /** Windows summed (a repeat() call's repetitions count as one), when more than one. */
    readonly parts?: number
  }
  readonly budget?: ReportedBudget
  /** `ReportedTest.limits`: what the test's energy matchers checked, in call order. */
  readonly limits?: readonly HtmlLimit[]
  /** Index into `limits` of the one the tests table shows when the test has no budget. */
  readonly limit?: number
  readonly baseline?: ReportedDelta
  readonly windows: readonly HtmlWindow[]
  /** Raw data kept for the test (option `artifacts` of the plugin), when found on disk. */
  readonly artifacts?: readonly HtmlArtifact[]
}

/** A matcher's check (`LimitCheck`), as the page shows it. */
export interface HtmlLimit {
  readonly matcher: string
  /** `62% of limit < 2.50 J`, `power, gross: 104% of limit < 1.20 W` (reporter/limits.ts). */
  readonly text: string
  /** The limit with its comparison: `< 2.50 J`, `not ≤ 1.20 W`. */
  readonly bound: string
  /** What the figure is when not a window's net energy: `gross`, `FeedAdapter.bind`, `mean of 5`. */
  readonly qualifier: string
  readonly limit: number
  readonly unit: 'J' | 'W' | '%'
  readonly value?: number
  /** 100 · value / limit, for J and W limits. */
  readonly usePct?: number
  readonly verdict: 'within' | 'over' | 'inconclusive' | 'unjudgeable'
  readonly passed: boolean
  /** The window, repetitions or method it applied to (a method: `method in window`). */
  readonly target?: string
  readonly reason?: string
}

export type HtmlWindow = HtmlMeasuredWindow | HtmlSkippedWindow | HtmlFailedWindow

export interface HtmlMeasuredWindow {
  readonly status: 'measured'
  readonly label: string
  /** Start, seconds after the start of the test's first measured window (same clock). */
  readonly startS: number
  readonly durationS: number
  readonly clock: string
  readonly grossEnergyJ: number
  readonly netEnergyJ: number
  /** 95% interval of the net energy, when the source gives one. */
  readonly netIntervalJ?: readonly [low: number, high: number]
  /** The idle level subtracted from gross, watts. */
  readonly baselinePowerW: number
  readonly averagePowerW: number
  /** The window of `energy.baseline()`: the idle phone, which the test's energy leaves out. */
  readonly idleBaseline?: true
  readonly attributedEnergyJ: number
  readonly unattributedEnergyJ: number
  readonly rails: readonly HtmlRail[]
  readonly components: readonly (readonly [component: StringRef, energyJ: number])[]
  /** Highest inclusive energy first, as in the report (trimmed to the fixture's top methods). */
  readonly methods: readonly HtmlMethod[]
  readonly power: StringRef
  readonly execution?: StringRef
  /** Where the methods' energy came from (`describeMethodEnergy`), when it has methods. */
  readonly methodEnergy?: StringRef
  readonly sampleCount: number
  readonly sensorRateHz?: number
  /** `model (serial)`. */
  readonly device?: StringRef
  readonly battery?: { readonly percentOfCapacity: number; readonly percentPerHour: number }
  readonly warnings: readonly HtmlWarning[]
  /** The sensor's power over the window, thinned, and its method activity (`PowerTimeline`). */
  readonly timeline?: HtmlTimeline
  /** The window's call tree (`CallTreeNode`). */
  readonly tree?: HtmlTreeNode
  /** The JSON report has a timeline or tree this file left out to stay small (`DETAIL_BUDGET_BYTES`). */
  readonly detailOmitted?: true
}

export interface HtmlTimeline {
  /** Bucket edges, seconds from the window's start. */
  readonly edgesS: readonly number[]
  /** Average power per bucket, W, 4 significant digits. */
  readonly series: readonly (readonly [
    name: StringRef,
    subsystem: StringRef | null,
    powerW: readonly number[],
  ])[]
  /** Threads running the method, on average per bucket, to 0.01. */
  readonly lanes?: readonly (readonly [method: StringRef, busy: readonly number[]])[]
  readonly carriedIn?: readonly HtmlCarriedIn[]
}

/** Asynchronous energy carried in from an earlier window (`CarriedInEnergy`). */
export type HtmlCarriedIn = readonly [
  component: StringRef,
  rail: StringRef,
  energyJ: number,
  untilS: number,
  method: StringRef | null,
  window: StringRef | null,
]

/** Name, kind (`root`, `thread`, `method`, `async`, `other`), self energy, children. */
export type HtmlTreeNode = readonly [
  name: StringRef,
  kind: StringRef,
  selfJ: number,
  children?: readonly HtmlTreeNode[],
]

export interface HtmlSkippedWindow {
  readonly status: 'skipped'
  readonly label: string
  readonly reason: string
}

export interface HtmlFailedWindow {
  readonly status: 'failed'
  readonly label: string
  readonly error: { readonly code: string; readonly message: string; readonly hint: string }
  readonly warnings: readonly HtmlWarning[]
}

export type HtmlRail = readonly [rail: StringRef, subsystem: StringRef | null, energyJ: number]

/** Code, severity, message. */
export type HtmlWarning = readonly [code: StringRef, severity: StringRef, message: StringRef]

/**
 * One method of a window. `self` is its local (exclusive) energy, `callees` its non-local energy
 * (inclusive = self + callees), `async` what it caused after it ran (radio tails). Optional fields
 * at the end are null when unknown.
 */
export type HtmlMethod = readonly [
  method: StringRef,
  selfJ: number,
  calleesJ: number,
  asyncJ: number,
  color: MethodColor | null,
  attribution: StringRef,
  inclusiveLowJ: number | null,
  inclusiveHighJ: number | null,
  calls: number | null,
]

export interface HtmlArtifact {
  /** File name, e.g. `opening_the_feed.power-rails.pftrace`. */
  readonly name: string
  /** URL relative to the HTML file, each segment percent-encoded. */
  readonly href: string
  readonly bytes: number
}

/** The report's budget counts (file, updated, within, over, inconclusive, missing), and: */
export interface HtmlBudgets extends Pick<
  ReportBudgets,
  'file' | 'updated' | 'within' | 'over' | 'inconclusive' | 'missing'
> {
  /** What changed (update mode) or is obsolete (check mode), with values where known. */
  readonly entries: readonly HtmlBudgetChange[]
  /**
   * Indices into `tests` of the tests counted in `missing`: no budget, and `-u` writes one
   * (`BudgetReview.withoutBudget`). Empty when the reporter did not say.
   */
  readonly withoutBudget: readonly number[]
}

export interface HtmlBudgetChange {
  /** `obsolete`: the test is gone (removed when `updated`). */
  readonly kind: 'added' | 'changed' | 'obsolete'
  /** Key in the budget file (relative to it). */
  readonly file: string
  readonly name: string
  readonly device: string
  readonly before?: BudgetValue
  readonly after?: BudgetValue
  /** Index into `tests`, when the test ran. */
  readonly test?: number
}

export interface BudgetValue {
  readonly energyJ: number
  readonly measuredEnergyJ?: number
}

export interface HtmlBaseline {
  readonly file: string
  readonly compared: number
  /** Indices into `tests`. */
  readonly regressions: readonly number[]
  readonly improvements: readonly number[]
}

export interface HtmlClassification {
  readonly preset: string
  readonly errorVector: string
  readonly thresholdW: number | null
  readonly project: MethodColor
  readonly excessive: number
  readonly classes: readonly HtmlClassifiedGroup[]
  readonly packages: readonly HtmlClassifiedGroup[]
}

export type HtmlClassifiedGroup = readonly [name: string, color: MethodColor, members: number]

/** What the reporter knows about the budget file beyond the report (old values, file keys). */
export interface BudgetReview {
  /** The file as it was before this run. */
  readonly before: BudgetFile
  /** The file this run wrote (update mode). */
  readonly after?: BudgetFile
  /** Maps a report file (root-relative) to its key in the budget file. */
  readonly fileKey: (file: string) => string
  /**
   * Indices into `report.tests` of the tests the report counts as without a budget
   * (`testsWithoutBudget` of reporter/report.ts): the JSON report has only their number, and not
   * whether a test asked for a budget.
   */
  readonly withoutBudget?: readonly number[]
}

export interface HtmlDataOptions {
  readonly budgetReview?: BudgetReview
  /** Raw data kept per test, by index into `report.tests`. */
  readonly artifacts?: ReadonlyMap<number, readonly HtmlArtifact[]>
  readonly createdAt?: string
  /** @default DETAIL_BUDGET_BYTES */
  readonly detailBudgetBytes?: number
}

/** Significant digits kept for figures (the page shows 3). */
const DIGITS = 6

/** `x` to `digits` significant digits, by arithmetic (toPrecision's string round trip is slower). */
function round(x: number, digits = DIGITS): number {
  if (!Number.isFinite(x) || x === 0) return x
  const k = digits - 1 - Math.floor(Math.log10(Math.abs(x)))
  // Dividing an integer by a power of ten gives the double nearest the decimal, which prints short.
  return k >= 0 ? Math.round(x * 10 ** k) / 10 ** k : Math.round(x / 10 ** -k) * 10 ** -k
}

/**
 * Bytes of timelines and call trees the page embeds, at most: with the rest of a 10,000-test
 * report this keeps the file under 25 MB. Tests get theirs in the order a reviewer opens them —
 * failed, over a budget or a matcher limit, regressed, then by net energy — until it is used up;
 * the others say the JSON report has it.
 */
export const DETAIL_BUDGET_BYTES = 8_000_000

class StringTable {
  readonly strings: string[] = []
  private readonly index = new Map<string, number>()

  ref(text: string): StringRef {
    let i = this.index.get(text)
    if (i === undefined) {
      i = this.strings.length
      this.strings.push(text)
      this.index.set(text, i)
    }
    return i
  }
}

export function htmlData(report: EnergyReport, options: HtmlDataOptions = {}): HtmlData {
  const table = new StringTable()
  const detailed = detailedTests(report, table, options.detailBudgetBytes ?? DETAIL_BUDGET_BYTES)
  const tests = report.tests.map((t, i) =>
    htmlTest(t, table, options.artifacts?.get(i), detailed.get(i)),
  )
  const byName = new Map(report.tests.map((t, i) => [`${t.file}\u0000${t.name}`, i]))
  const indexOf = (file: string, name: string): number | undefined =>
    byName.get(`${file}\u0000${name}`)
  const indices = (refs: ReadonlyArray<{ file: string; name: string }>): number[] =>
    refs.flatMap((r) => {
      const i = indexOf(r.file, r.name)
      return i === undefined ? [] : [i]
    })
  const c = report.classification
  return {
    version: HTML_DATA_VERSION,
    strings: table.strings,
    ...(options.createdAt === undefined ? {} : { createdAt: options.createdAt }),
    interrupted: report.interrupted === true,
    summary: report.summary,
    ...(report.summary.cpuModel === undefined
      ? {}
      : { cpuModel: report.summary.cpuModel.map(describeCpuModel) }),
    tests,
    suiteFailures: report.suiteFailures,
    unhandledErrors: report.unhandledErrors,
    ...(report.budgets === undefined ? {} : { budgets: htmlBudgets(report, options.budgetReview) }),
    ...(report.baseline === undefined
      ? {}
      : {
          baseline: {
            file: report.baseline.file,
            compared: report.baseline.compared,
            regressions: indices(report.baseline.regressions),
            improvements: indices(report.baseline.improvements),
          },
        }),
    ...(c === undefined
      ? {}
      : {
          classification: {
            preset: c.preset,
            errorVector: c.errorVector,
            thresholdW: c.thresholdW,
            project: c.project,
            excessive: c.excessive.length,
            classes: c.classes.map((g) => [g.name, g.color, g.members] as const),
            packages: c.packages.map((g) => [g.name, g.color, g.members] as const),
          },
        }),
  }
}

function htmlTest(
  t: ReportedTest,
  table: StringTable,
  artifacts: readonly HtmlArtifact[] | undefined,
  detail: ReadonlyMap<EnergyResult, WindowDetail> | undefined,
): HtmlTest {
  const measured = t.results.filter((r) => r.status === 'measured')
  const origin = measured.length > 0 ? Math.min(...measured.map((r) => r.window.startNs)) : 0
  const f = t.budgetFigure
  const parts = repetitionGroups(workWindows(t.results)).length
  const limits = t.limits ?? []
  const primary = primaryLimit(limits)
  return {
    file: table.ref(t.file),
    name: t.name,
    state: t.state,
    ...(t.expectedToFail === true ? { expectedToFail: true as const } : {}),
    ...(t.failure === undefined ? {} : { failure: t.failure }),
    ...(t.errors.length === 0 ? {} : { errors: t.errors }),
    ...(t.noEnergyReason === undefined ? {} : { noEnergyReason: t.noEnergyReason }),
    netEnergyJ: round(t.netEnergyJ),
    ...(t.ownEnergyJ === t.netEnergyJ ? {} : { ownEnergyJ: round(t.ownEnergyJ) }),
    grossEnergyJ: round(t.grossEnergyJ),
    durationS: round(t.durationS),
    ...(f === undefined
      ? {}
      : {
          budgetFigure: {
            valueJ: round(f.valueJ),
            ...(f.intervalJ === undefined
              ? {}
              : { lowJ: round(f.intervalJ.low), highJ: round(f.intervalJ.high) }),
            n: f.n,
            ...(parts >= 2 ? { parts } : {}),
          },
        }),
    ...(t.budget === undefined ? {} : { budget: t.budget }),
    ...(limits.length === 0 ? {} : { limits: limits.map(htmlLimit) }),
    ...(primary === undefined ? {} : { limit: limits.indexOf(primary) }),
    ...(t.baseline === undefined ? {} : { baseline: t.baseline }),
    windows: t.results.map((r) => htmlWindow(r, table, origin, detail)),
    ...(artifacts === undefined || artifacts.length === 0 ? {} : { artifacts }),
  }
}

function htmlLimit(check: NonNullable<ReportedTest['limits']>[number]): HtmlLimit {
  const use = check.unit === '%' ? undefined : limitUse(check)
  const t = check.target
  return {
    matcher: check.matcher,
    text: describeLimit(check),
    bound: limitBound(check),
    qualifier: limitQualifier(check),
    limit: check.limit,
    unit: check.unit,
    ...(check.value === undefined ? {} : { value: round(check.value) }),
    ...(use === undefined ? {} : { usePct: round(use) }),
    verdict: check.verdict,
    passed: check.passed,
    ...(t === undefined
      ? {}
      : { target: t.window === undefined ? t.label : `${t.label} in ${t.window}` }),
    ...(check.reason === undefined ? {} : { reason: check.reason }),
  }
}

function htmlWindow(
  r: EnergyResult,
  table: StringTable,
  originNs: number,
  detail: ReadonlyMap<EnergyResult, WindowDetail> | undefined,
): HtmlWindow {
  const warning = (w: { code: string; severity: string; message: string }): HtmlWarning => [
    table.ref(w.code),
    table.ref(w.severity),
    table.ref(w.message),
  ]
  if (r.status === 'skipped') return { status: 'skipped', label: r.label, reason: r.reason }
  if (r.status === 'failed')
    return { status: 'failed', label: r.label, error: r.error, warnings: r.warnings.map(warning) }
  const s = r.sources
  return {
    status: 'measured',
    label: r.label,
    startS: round((r.window.startNs - originNs) / 1e9),
    durationS: round(r.durationS),
    clock: r.window.clock,
    grossEnergyJ: round(r.grossEnergyJ),
    netEnergyJ: round(r.netEnergyJ),
    ...(r.netIntervalJ === undefined
      ? {}
      : { netIntervalJ: [round(r.netIntervalJ.low), round(r.netIntervalJ.high)] as const }),
    baselinePowerW: round(r.baselinePowerW),
    averagePowerW: round(r.averagePowerW),
    ...(r.idleBaseline === true ? { idleBaseline: true as const } : {}),
    attributedEnergyJ: round(r.attributedEnergyJ),
    unattributedEnergyJ: round(r.unattributedEnergyJ),
    rails: r.rails.map(
      (rail) =>
        [
          table.ref(rail.rail),
          rail.subsystem === undefined ? null : table.ref(rail.subsystem),
          round(rail.energyJ),
        ] as const,
    ),
    components: r.components.map((c) => [table.ref(c.component), round(c.energyJ)] as const),
    methods: r.methods.map(
      (m) =>
        [
          table.ref(m.method),
          round(m.localEnergyJ),
          round(m.nonLocalEnergyJ),
          round(m.asyncEnergyJ),
          m.color ?? null,
          table.ref(m.attribution),
          m.inclusiveIntervalJ === undefined ? null : round(m.inclusiveIntervalJ.low),
          m.inclusiveIntervalJ === undefined ? null : round(m.inclusiveIntervalJ.high),
          m.calls ?? null,
        ] as const,
    ),
    power: table.ref(s.power),
    ...(s.execution === undefined ? {} : { execution: table.ref(s.execution) }),
    ...(s.methodEnergy === undefined
      ? {}
      : { methodEnergy: table.ref(describeMethodEnergy(s.methodEnergy)) }),
    sampleCount: s.sampleCount,
    ...(s.sensorRateHz === undefined ? {} : { sensorRateHz: round(s.sensorRateHz) }),
    ...(r.device === undefined ? {} : { device: table.ref(deviceLabel(r.device)) }),
    ...(r.battery === undefined
      ? {}
      : {
          battery: {
            percentOfCapacity: round(r.battery.percentOfCapacity),
            percentPerHour: round(r.battery.percentPerHour),
          },
        }),
    warnings: r.warnings.map(warning),
    ...(detail?.get(r) ??
      (r.timeline === undefined && r.callTree === undefined ? {} : { detailOmitted: true })),
  }
}

type WindowDetail = Pick<HtmlMeasuredWindow, 'timeline' | 'tree'>

/**
 * The timelines and trees the page embeds, by test index and window, within `budgetBytes`
 * (`DETAIL_BUDGET_BYTES`): tests in the order a reviewer opens them until the budget is used.
 */
function detailedTests(
  report: EnergyReport,
  table: StringTable,
  budgetBytes: number,
): Map<number, Map<EnergyResult, WindowDetail>> {
  const rank = (t: ReportedTest): number =>
    t.state === 'failed'
      ? 0
      : t.budget?.verdict === 'over' || t.limits?.some((l) => !l.passed) === true
        ? 1
        : t.baseline?.verdict === 'worse'
          ? 2
          : 3
  const order = [...report.tests.keys()]
    .filter((i) =>
      report.tests[i]?.results.some(
        (r) => r.status === 'measured' && (r.timeline !== undefined || r.callTree !== undefined),
      ),
    )
    .sort((a, b) => {
      const x = report.tests[a] as ReportedTest
      const y = report.tests[b] as ReportedTest
      return rank(x) - rank(y) || y.ownEnergyJ - x.ownEnergyJ || a - b
    })
  const out = new Map<number, Map<EnergyResult, WindowDetail>>()
  let usedBytes = 0
  for (const i of order) {
    const t = report.tests[i] as ReportedTest
    const windows = new Map<EnergyResult, WindowDetail>()
    let bytes = 0
    for (const r of t.results) {
      if (r.status !== 'measured') continue
      const d: WindowDetail = {
        ...(r.timeline === undefined ? {} : { timeline: htmlTimeline(r.timeline, table) }),
        ...(r.callTree === undefined ? {} : { tree: htmlTree(r.callTree, table) }),
      }
      bytes += detailBytes(d)
      windows.set(r, d)
    }
    if (usedBytes + bytes > budgetBytes) break
    usedBytes += bytes
    out.set(i, windows)
  }
  return out
}

/**
 * What `d` adds to the embedded JSON, from above without serialising every window twice: a power
 * (4 significant digits) ≤ 9 bytes with its comma, an edge (6) ≤ 10, a lane's activity (to 0.01)
 * ≤ 5, a string reference ≤ 7, a tree node ≤ 24 plus its name's reference.
 */
function detailBytes(d: WindowDetail): number {
  const t = d.timeline
  let bytes = 60
  if (t !== undefined) {
    bytes += 10 * t.edgesS.length
    for (const s of t.series) bytes += 9 * s[2].length + 20
    for (const l of t.lanes ?? []) bytes += 5 * l[1].length + 12
    bytes += 60 * (t.carriedIn?.length ?? 0)
  }
  const nodes = (n: HtmlTreeNode): number => 1 + (n[3] ?? []).reduce((sum, c) => sum + nodes(c), 0)
  return bytes + (d.tree === undefined ? 0 : 31 * nodes(d.tree))
}

function htmlTimeline(t: PowerTimeline, table: StringTable): HtmlTimeline {
  return {
    edgesS: t.edgesS.map((x) => round(x)),
    series: t.series.map(
      (s) =>
        [
          table.ref(s.name),
          s.subsystem === undefined ? null : table.ref(s.subsystem),
          s.powerW.map((p) => round(p, 4)),
        ] as const,
    ),
    ...(t.lanes === undefined
      ? {}
      : {
          lanes: t.lanes.map(
            (l) => [table.ref(l.method), l.busy.map((b) => Math.round(b * 100) / 100)] as const,
          ),
        }),
    ...(t.carriedIn === undefined
      ? {}
      : {
          carriedIn: t.carriedIn.map(
            (c) =>
              [
                table.ref(c.component),
                table.ref(c.rail),
                round(c.energyJ),
                round(c.untilS),
                c.method === undefined ? null : table.ref(c.method),
                c.window === undefined ? null : table.ref(c.window),
              ] as const,
          ),
        }),
  }
}

function htmlTree(n: CallTreeNode, table: StringTable): HtmlTreeNode {
  const head = [table.ref(n.name), table.ref(n.kind), round(n.selfEnergyJ)] as const
  return n.children === undefined ? head : [...head, n.children.map((c) => htmlTree(c, table))]
}

/**
 * The budget review: in update mode what this run added and changed (old → new) and which
 * obsolete entries it removed; otherwise the obsolete entries a `vitest -u` would remove. Values
 * come from the budget files when the reporter passed them (`budgetReview`).
 */
function htmlBudgets(report: EnergyReport, review: BudgetReview | undefined): HtmlBudgets {
  const b = report.budgets
  if (b === undefined) throw new Error('htmlBudgets: the report has no budgets')
  const testOf = new Map<string, number>()
  if (review !== undefined) {
    report.tests.forEach((t, i) => testOf.set(`${review.fileKey(t.file)}\u0000${t.name}`, i))
  }
  const value = (file: BudgetFile | undefined, ref: BudgetRefLike): BudgetValue | undefined =>
    file?.tests[ref.file]?.[ref.name]?.[ref.device]
  const change = (kind: HtmlBudgetChange['kind'], ref: BudgetRefLike): HtmlBudgetChange => {
    const before = value(review?.before, ref)
    const after = kind === 'obsolete' ? undefined : value(review?.after, ref)
    const test = testOf.get(`${ref.file}\u0000${ref.name}`)
    return {
      kind,
      file: ref.file,
      name: ref.name,
      device: ref.device,
      ...(before === undefined || kind === 'added' ? {} : { before }),
      ...(after === undefined ? {} : { after }),
      ...(test === undefined ? {} : { test }),
    }
  }
  return {
    file: b.file,
    updated: b.updated,
    within: b.within,
    over: b.over,
    inconclusive: b.inconclusive,
    missing: b.missing,
    entries: [
      ...b.added.map((r) => change('added', r)),
      ...b.changed.map((r) => change('changed', r)),
      ...b.obsolete.map((r) => change('obsolete', r)),
    ],
    withoutBudget: review?.withoutBudget ?? [],
  }
}

interface BudgetRefLike {
  readonly file: string
  readonly name: string
  readonly device: string
}
