/**
 * The spectrum-based red/yellow/green classifier (issue 8): builds the n11/n10/n01/n00 counts of
 * every method from the spectrum and the error vector, colours methods, classes and packages by a
 * preset, and reports SFL coefficients and rankings beside the colours.
 */
import { EnergyError, type MethodColor } from '../model/index.js'
import { dstar, energyWeightedOchiai, jaccard, ochiai, tarantula } from './coefficients.js'
import { ClassifyErrors } from './errors.js'
import { errorVector, type ErrorVectorMode, type ErrorVectorOptions } from './error-vector.js'
import type { KnowledgeBaseSummary } from './knowledge-base.js'
import { aggregateColor, methodColor, PRESETS, type Preset } from './rules.js'
import { methodOwner, type TestSpectrum } from './spectrum.js'

export interface ClassifyOptions extends ErrorVectorOptions {
  /** @default 'couto2014' */
  readonly preset?: Preset
  /** Every method of the app; those never executed are listed too (uncoloured under couto2014). */
  readonly allMethods?: readonly string[]
}

/** One method's row. Counts are numbers of tests, not calls. */
export interface ClassifiedMethod {
  readonly name: string
  /** Owning class, e.g. `com.a.B`. */
  readonly class: string
  readonly n11: number
  readonly n10: number
  readonly n01: number
  readonly n00: number
  /** n11 / (n11 + n10); 0 when never executed. */
  readonly p: number
  readonly color: MethodColor
  readonly ochiai: number
  readonly tarantula: number
  readonly jaccard: number
  /** DStar (* = 2); null = unbounded (+∞). */
  readonly dstar: number | null
  /** Energy-weighted Ochiai; null when per-method energy is missing for a test that ran it. */
  readonly energyWeighted: number | null
  /** Calls over all tests. */
  readonly calls: number
  /** Energy charged to the method over all tests, joules, when known for every test. */
  readonly energyJ?: number
}

export interface ClassifiedGroup {
  readonly name: string
  readonly color: MethodColor
  /** Number of direct members (methods of a class, classes of a package). */
  readonly members: number
}

export type Coefficient = 'ochiai' | 'tarantula' | 'jaccard' | 'dstar' | 'energyWeighted'

/** The classifier's JSON output (`vitest-energy classify --format json`). */
export interface ClassificationResult {
  readonly schemaVersion: 1
  readonly preset: Preset
  readonly errorVector: ErrorVectorMode | 'override'
  /** couto2014 error vector: the mean average power compared against, in W; otherwise null. */
  readonly threshold: number | null
  /** Ids of energy-greedy tests. */
  readonly excessive: readonly string[]
  readonly tests: number
  /** couto2014 error vector: the knowledge base used (before this run). */
  readonly knowledgeBase?: KnowledgeBaseSummary
  /** Sorted by name. */
  readonly methods: readonly ClassifiedMethod[]
  readonly classes: readonly ClassifiedGroup[]
  readonly packages: readonly ClassifiedGroup[]
  /** Project colour, aggregated from the packages. */
  readonly project: MethodColor
  /** Method names ranked by each coefficient, most suspicious first (ties by name). */
  readonly rankings: Readonly<Record<Coefficient, readonly string[]>>
}

/** Classifies the methods of a spectrum. */
export function classify(
  tests: readonly TestSpectrum[],
  options: ClassifyOptions = {},
): ClassificationResult {
  const preset = options.preset ?? 'couto2014'
  if (!PRESETS.includes(preset)) {
    throw new EnergyError({
      code: ClassifyErrors.UNKNOWN_PRESET,
      message: `unknown preset '${String(preset)}'`,
      hint: `Use one of: ${PRESETS.join(', ')}.`,
    })
  }
  if (tests.length === 0) {
    throw new EnergyError({
      code: ClassifyErrors.EMPTY_SPECTRUM,
      message: 'the spectrum has no tests',
      hint: 'Run the energy tests first; the classifier needs at least one test.',
    })
  }
  const seen = new Set<string>()
  for (const t of tests) {
    if (seen.has(t.id)) {
      throw new EnergyError({
        code: ClassifyErrors.DUPLICATE_TEST,
        message: `test id '${t.id}' appears twice`,
        hint: 'Give every test a unique id; merge repetitions of one test into one row.',
        details: { test: t.id },
      })
    }
    seen.add(t.id)
  }
  const ev = errorVector(tests, options)
  const excessive = new Set(ev.excessive)
  const failing = ev.excessive.length
  const passing = tests.length - failing
  const excessiveEnergyJ = tests
    .filter((t) => excessive.has(t.id))
    .reduce((s, t) => s + t.energyJ, 0)

  interface Acc {
    n11: number
    n10: number
    calls: number
    e11J: number
    e10J: number
    energyKnown: boolean
  }
  const acc = new Map<string, Acc>()
  const get = (name: string): Acc => {
    let a = acc.get(name)
    if (a === undefined) {
      methodOwner(name)
      a = { n11: 0, n10: 0, calls: 0, e11J: 0, e10J: 0, energyKnown: true }
      acc.set(name, a)
    }
    return a
  }
  for (const name of options.allMethods ?? []) get(name)
  for (const t of tests) {
    const bad = excessive.has(t.id)
    for (const m of t.methods) {
      const a = get(m.name)
      if (bad) a.n11++
      else a.n10++
      a.calls += m.calls
      if (m.energyJ === undefined) a.energyKnown = false
      else if (bad) a.e11J += m.energyJ
      else a.e10J += m.energyJ
    }
  }

  const methods: ClassifiedMethod[] = [...acc]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, a]) => {
      const counts = { n11: a.n11, n10: a.n10, n01: failing - a.n11, n00: passing - a.n10 }
      const executed = a.n11 + a.n10 > 0
      return {
        name,
        class: methodOwner(name).className,
        ...counts,
        p: executed ? a.n11 / (a.n11 + a.n10) : 0,
        color: methodColor(preset, counts),
        ochiai: ochiai(counts),
        tarantula: tarantula(counts),
        jaccard: jaccard(counts),
        dstar: dstar(counts),
        energyWeighted: a.energyKnown
          ? energyWeightedOchiai(a.e11J, a.e10J, excessiveEnergyJ)
          : null,
        calls: a.calls,
        ...(a.energyKnown && executed ? { energyJ: a.e11J + a.e10J } : {}),
      }
    })

  const byClass = groupBy(methods, (m) => m.class)
  const classes: ClassifiedGroup[] = [...byClass].map(([name, ms]) => ({
    name,
    color: aggregateColor(
      preset,
      ms.map((m) => m.color),
    ),
    members: ms.length,
  }))
  const byPackage = groupBy(classes, (c) => methodOwner(`${c.name}.x`).packageName)
  const packages: ClassifiedGroup[] = [...byPackage].map(([name, cs]) => ({
    name,
    color: aggregateColor(
      preset,
      cs.map((c) => c.color),
    ),
    members: cs.length,
  }))

  return {
    schemaVersion: 1,
    preset,
    errorVector: ev.mode,
    threshold: ev.thresholdW ?? null,
    excessive: ev.excessive,
    tests: tests.length,
    ...(ev.knowledgeBase === undefined ? {} : { knowledgeBase: ev.knowledgeBase }),
    methods,
    classes,
    packages,
    project: aggregateColor(
      preset,
      packages.map((p) => p.color),
    ),
    rankings: {
      ochiai: rank(methods, (m) => m.ochiai),
      tarantula: rank(methods, (m) => m.tarantula),
      jaccard: rank(methods, (m) => m.jaccard),
      dstar: rank(methods, (m) => m.dstar ?? Infinity),
      energyWeighted: rank(
        methods.filter((m) => m.energyWeighted !== null),
        (m) => m.energyWeighted ?? 0,
      ),
    },
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>()
  for (const item of [...items].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0))) {
    const k = key(item)
    const list = out.get(k)
    if (list === undefined) out.set(k, [item])
    else list.push(item)
  }
  return out
}

function rank(
  methods: readonly ClassifiedMethod[],
  score: (m: ClassifiedMethod) => number,
): string[] {
  return [...methods]
    .filter((m) => m.n11 + m.n10 > 0)
    .sort((a, b) => score(b) - score(a) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((m) => m.name)
}
