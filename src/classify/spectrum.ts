/**
 * The program spectrum: per test, its energy, duration, average power and the methods it executed
 * (with call counts and, where known, time and energy per method). Built from `EnergyResult`s or
 * parsed (and validated) from the CLI's JSON input.
 */
import { EnergyError, type EnergyResult, type MeasuredEnergyResult } from '../model/index.js'
import { ClassifyErrors } from './errors.js'

/** One method executed by one test. */
export interface MethodHit {
  /** Fully qualified `com.example.Feed.bind` (a `(signature)` suffix is ignored for grouping). */
  readonly name: string
  /** Calls seen in the test (1 when only presence is known). */
  readonly calls: number
  /** Inclusive time in the method during the test, seconds, when known. */
  readonly timeS?: number
  /** Inclusive energy charged to the method during the test, joules, when known. */
  readonly energyJ?: number
}

/** One test's row of the spectrum. */
export interface TestSpectrum {
  readonly id: string
  /** Energy of the test window, joules. */
  readonly energyJ: number
  /** Duration of the test window, seconds (> 0). */
  readonly durationS: number
  /** `energyJ / durationS`, watts: Couto's "consumption per second". */
  readonly averagePowerW: number
  /** Methods executed at least once, unique by name. */
  readonly methods: readonly MethodHit[]
  /** Energy budget of the test, joules, for the `budget` error vector. */
  readonly budgetJ?: number
  /** Average power of each repetition, watts, for the `statistical` error vector. */
  readonly repetitionsPowerW?: readonly number[]
}

/** What `vitest-energy classify` reads (see docs/classifier.md). */
export interface SpectrumInput {
  readonly tests: readonly TestSpectrum[]
  /** Average powers (W) of earlier tests: Couto's knowledge base, without this run. */
  readonly knowledgeBase?: readonly number[]
  /** Test ids to treat as energy-greedy, overriding the error vector. */
  readonly excessive?: readonly string[]
  /** Every method of the app, so never-executed ones are listed (uncoloured) too. */
  readonly allMethods?: readonly string[]
}

/** Where a method lives: class `com.a.B`, package `com.a` (`''` for the default package). */
export interface MethodOwner {
  readonly className: string
  readonly packageName: string
}

/** True for `Class.method` or `package.Class.method`, optionally followed by `(signature)`. */
export function isQualifiedMethodName(name: string): boolean {
  const bare = name.includes('(') ? name.slice(0, name.indexOf('(')) : name
  const dot = bare.lastIndexOf('.')
  return dot > 0 && dot < bare.length - 1
}

function badMethodName(name: string, details: Record<string, string>): EnergyError {
  return new EnergyError({
    code: ClassifyErrors.INVALID_METHOD_NAME,
    message: `${details.path === undefined ? '' : `${details.path}: `}method name '${name}' is not of the form package.Class.method`,
    hint: 'Use fully qualified names such as com.example.Feed.bind.',
    details: { method: name, ...details },
  })
}

/** Splits `com.a.B.m(I)V` into class `com.a.B` and package `com.a`. */
export function methodOwner(name: string): MethodOwner {
  if (!isQualifiedMethodName(name)) throw badMethodName(name, {})
  const bare = name.includes('(') ? name.slice(0, name.indexOf('(')) : name
  const className = bare.slice(0, bare.lastIndexOf('.'))
  const pdot = className.lastIndexOf('.')
  return { className, packageName: pdot < 0 ? '' : className.slice(0, pdot) }
}

/** Builds a test row from raw values, merging duplicate method entries (calls, time, energy add). */
export function testSpectrum(input: {
  readonly id: string
  readonly energyJ: number
  readonly durationS: number
  readonly methods: readonly (
    | string
    | {
        readonly name: string
        readonly calls?: number
        readonly timeS?: number
        readonly energyJ?: number
      }
  )[]
  readonly budgetJ?: number
  readonly repetitionsPowerW?: readonly number[]
}): TestSpectrum {
  if (
    !(Number.isFinite(input.energyJ) && input.energyJ >= 0) ||
    !(Number.isFinite(input.durationS) && input.durationS > 0)
  ) {
    throw new EnergyError({
      code: ClassifyErrors.INVALID_SPECTRUM,
      message: `test '${input.id}' has energyJ ${input.energyJ} and durationS ${input.durationS}; need energy ≥ 0 J and duration > 0 s`,
      hint: 'Leave out tests whose energy window failed or is empty.',
      details: { test: input.id },
    })
  }
  const merged = new Map<string, { calls: number; timeS?: number; energyJ?: number }>()
  for (const m of input.methods) {
    const hit = typeof m === 'string' ? { name: m } : m
    methodOwner(hit.name)
    const prev = merged.get(hit.name)
    const calls = hit.calls ?? 1
    if (prev === undefined) {
      merged.set(hit.name, {
        calls,
        ...(hit.timeS === undefined ? {} : { timeS: hit.timeS }),
        ...(hit.energyJ === undefined ? {} : { energyJ: hit.energyJ }),
      })
    } else {
      prev.calls += calls
      if (hit.timeS !== undefined) prev.timeS = (prev.timeS ?? 0) + hit.timeS
      if (hit.energyJ !== undefined) prev.energyJ = (prev.energyJ ?? 0) + hit.energyJ
    }
  }
  return {
    id: input.id,
    energyJ: input.energyJ,
    durationS: input.durationS,
    averagePowerW: input.energyJ / input.durationS,
    methods: [...merged].map(([name, v]) => ({ name, ...v })),
    ...(input.budgetJ === undefined ? {} : { budgetJ: input.budgetJ }),
    ...(input.repetitionsPowerW === undefined
      ? {}
      : { repetitionsPowerW: input.repetitionsPowerW }),
  }
}

/**
 * Spectrum from measured results; skipped/failed/empty windows are left out. Energy is
 * `netEnergyJ` clamped at 0 (a test can draw less than the idle baseline); methods carry calls
 * (samples on the stack when sampled), inclusive time and inclusive energy. Entries sharing an id
 * are repetitions of one test: its row gets the mean energy and duration, the methods seen in any
 * repetition (calls summed, time and energy averaged per repetition) and `repetitionsPowerW` for
 * the `statistical` error vector. Results trimmed by `summarize({ topMethods })` lose the methods
 * below the cut, which then count as not executed: classify untrimmed results when you can.
 */
export function spectrumFromResults(
  entries: readonly {
    readonly id: string
    readonly result: EnergyResult
    readonly budgetJ?: number
  }[],
): TestSpectrum[] {
  const groups = new Map<string, { budgetJ?: number; runs: MeasuredEnergyResult[] }>()
  for (const { id, result, budgetJ } of entries) {
    if (result.status !== 'measured' || !(result.durationS > 0)) continue
    const g = groups.get(id) ?? { runs: [] }
    if (budgetJ !== undefined) g.budgetJ = budgetJ
    g.runs.push(result)
    groups.set(id, g)
  }
  return [...groups].map(([id, { budgetJ, runs }]) => {
    const k = runs.length
    const energies = runs.map((r) => Math.max(0, r.netEnergyJ))
    const methods = new Map<string, { calls: number; timeS?: number; energyJ: number }>()
    for (const r of runs) {
      for (const m of r.methods) {
        const prev = methods.get(m.method) ?? { calls: 0, energyJ: 0 }
        prev.calls += m.calls ?? Math.max(1, (m.localSamples ?? 0) + (m.nonLocalSamples ?? 0))
        prev.energyJ += m.inclusiveEnergyJ / k
        if (m.inclusiveTimeS !== undefined) prev.timeS = (prev.timeS ?? 0) + m.inclusiveTimeS / k
        methods.set(m.method, prev)
      }
    }
    return testSpectrum({
      id,
      energyJ: energies.reduce((a, b) => a + b, 0) / k,
      durationS: runs.reduce((a, r) => a + r.durationS, 0) / k,
      methods: [...methods].map(([name, v]) => ({ name, ...v })),
      ...(budgetJ === undefined ? {} : { budgetJ }),
      repetitionsPowerW: runs.map((r, i) => (energies[i] ?? 0) / r.durationS),
    })
  })
}

// ---------------------------------------------------------------------------------------------
// JSON input validation

function invalid(path: string, what: string, source: string): EnergyError {
  return new EnergyError({
    code: ClassifyErrors.INVALID_SPECTRUM,
    message: `${path}: ${what}`,
    hint: 'Expected { "tests": [{ "id", "energyJ", "durationS", "methods": [...] }], "knowledgeBase"?: [W...], "excessive"?: [ids] } (docs/classifier.md).',
    details: { format: source, path },
  })
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function finite(
  v: unknown,
  path: string,
  source: string,
  opts: { positive?: boolean; nonNegative?: boolean } = {},
): number {
  if (typeof v !== 'number' || !Number.isFinite(v))
    throw invalid(path, `expected a finite number, got ${JSON.stringify(v) ?? String(v)}`, source)
  if (opts.positive === true && !(v > 0))
    throw invalid(path, `expected a number > 0, got ${v}`, source)
  if (opts.nonNegative === true && !(v >= 0))
    throw invalid(path, `expected a number ≥ 0, got ${v}`, source)
  return v
}

function optionalFinite(
  obj: Record<string, unknown>,
  key: string,
  path: string,
  source: string,
  opts: { positive?: boolean; nonNegative?: boolean } = {},
): number | undefined {
  return obj[key] === undefined ? undefined : finite(obj[key], `${path}.${key}`, source, opts)
}

function stringArray(v: unknown, path: string, source: string): string[] {
  if (!Array.isArray(v)) throw invalid(path, 'expected an array of strings', source)
  return v.map((s, i) => {
    if (typeof s !== 'string' || s.length === 0)
      throw invalid(`${path}[${i}]`, 'expected a non-empty string', source)
    return s
  })
}

/**
 * Validates the classify JSON input. Every problem is an `E_CLASSIFY_INVALID_SPECTRUM` (or a more
 * specific code) with `details.path` such as `tests[2].durationS`.
 * @param source name of the input for messages (file name)
 */
export function parseSpectrumInput(json: unknown, source = 'spectrum.json'): SpectrumInput {
  if (!isRecord(json)) throw invalid('$', 'expected a JSON object', source)
  if (!Array.isArray(json.tests)) throw invalid('$.tests', 'expected an array of tests', source)
  if (json.tests.length === 0) {
    throw new EnergyError({
      code: ClassifyErrors.EMPTY_SPECTRUM,
      message: 'the spectrum has no tests',
      hint: 'Run the energy tests first; the classifier needs at least one test.',
      details: { format: source },
    })
  }
  const ids = new Set<string>()
  const tests = json.tests.map((t: unknown, i: number) => {
    const path = `tests[${i}]`
    if (!isRecord(t)) throw invalid(path, 'expected an object', source)
    if (typeof t.id !== 'string' || t.id.length === 0)
      throw invalid(`${path}.id`, 'expected a non-empty string', source)
    if (ids.has(t.id)) {
      throw new EnergyError({
        code: ClassifyErrors.DUPLICATE_TEST,
        message: `test id '${t.id}' appears twice`,
        hint: 'Give every test a unique id (e.g. file > suite > name).',
        details: { format: source, path: `${path}.id` },
      })
    }
    ids.add(t.id)
    const energyJ = finite(t.energyJ, `${path}.energyJ`, source, { nonNegative: true })
    const durationS = finite(t.durationS, `${path}.durationS`, source, { positive: true })
    if (!Array.isArray(t.methods))
      throw invalid(
        `${path}.methods`,
        'expected an array of method names or { name, calls?, timeS?, energyJ? }',
        source,
      )
    const methods = t.methods.map((m: unknown, j: number) => {
      const mpath = `${path}.methods[${j}]`
      if (typeof m === 'string') {
        if (m.length === 0) throw invalid(mpath, 'expected a non-empty method name', source)
        if (!isQualifiedMethodName(m)) throw badMethodName(m, { format: source, path: mpath })
        return m
      }
      if (!isRecord(m) || typeof m.name !== 'string' || m.name.length === 0)
        throw invalid(mpath, 'expected a method name or { name, calls?, timeS?, energyJ? }', source)
      if (!isQualifiedMethodName(m.name))
        throw badMethodName(m.name, { format: source, path: mpath })
      const calls = optionalFinite(m, 'calls', mpath, source, { nonNegative: true })
      if (calls !== undefined && !Number.isInteger(calls))
        throw invalid(`${mpath}.calls`, 'expected an integer', source)
      const timeS = optionalFinite(m, 'timeS', mpath, source, { nonNegative: true })
      const mEnergyJ = optionalFinite(m, 'energyJ', mpath, source, { nonNegative: true })
      return {
        name: m.name,
        ...(calls === undefined ? {} : { calls }),
        ...(timeS === undefined ? {} : { timeS }),
        ...(mEnergyJ === undefined ? {} : { energyJ: mEnergyJ }),
      }
    })
    const budgetJ = optionalFinite(t, 'budgetJ', path, source, { nonNegative: true })
    let repetitionsPowerW: number[] | undefined
    if (t.repetitions !== undefined) {
      if (!Array.isArray(t.repetitions))
        throw invalid(`${path}.repetitions`, 'expected an array of { energyJ, durationS }', source)
      repetitionsPowerW = t.repetitions.map((r: unknown, k: number) => {
        const rpath = `${path}.repetitions[${k}]`
        if (!isRecord(r)) throw invalid(rpath, 'expected { energyJ, durationS }', source)
        return (
          finite(r.energyJ, `${rpath}.energyJ`, source, { nonNegative: true }) /
          finite(r.durationS, `${rpath}.durationS`, source, { positive: true })
        )
      })
    }
    return testSpectrum({
      id: t.id,
      energyJ,
      durationS,
      methods,
      ...(budgetJ === undefined ? {} : { budgetJ }),
      ...(repetitionsPowerW === undefined ? {} : { repetitionsPowerW }),
    })
  })
  let knowledgeBase: number[] | undefined
  if (json.knowledgeBase !== undefined) {
    if (!Array.isArray(json.knowledgeBase))
      throw invalid('$.knowledgeBase', 'expected an array of average powers in W', source)
    knowledgeBase = json.knowledgeBase.map((v: unknown, i: number) =>
      finite(v, `knowledgeBase[${i}]`, source, { nonNegative: true }),
    )
  }
  let excessive: string[] | undefined
  if (json.excessive !== undefined) {
    excessive = stringArray(json.excessive, '$.excessive', source)
    for (const id of excessive) {
      if (!ids.has(id)) {
        throw new EnergyError({
          code: ClassifyErrors.UNKNOWN_TEST,
          message: `excessive lists '${id}', which is not a test id`,
          hint: 'List only ids that appear in tests[].id.',
          details: { format: source, path: '$.excessive' },
        })
      }
    }
  }
  let allMethods: string[] | undefined
  if (json.allMethods !== undefined) {
    allMethods = stringArray(json.allMethods, '$.allMethods', source)
    allMethods.forEach((m, i) => {
      if (!isQualifiedMethodName(m))
        throw badMethodName(m, { format: source, path: `allMethods[${i}]` })
    })
  }
  return {
    tests,
    ...(knowledgeBase === undefined ? {} : { knowledgeBase }),
    ...(excessive === undefined ? {} : { excessive }),
    ...(allMethods === undefined ? {} : { allMethods }),
  }
}
