/**
 * Writing budgets from measurements (`vitest -u`, `VITEST_ENERGY_UPDATE=1`; the missing ones in
 * the runner's `new` mode) and finding obsolete entries. Pure: the reporter, the one writer, does
 * the file I/O.
 */
import {
  ANY_DEVICE,
  BUDGET_SCHEMA_VERSION,
  lookupBudget,
  type BudgetEntry,
  type BudgetFile,
} from './file.js'
import { budgetFromMeasurement, roundSignificant } from './figure.js'
import { decide } from './verdict.js'

/** One test as the run saw it. */
export interface BudgetObservation {
  readonly file: string
  readonly name: string
  /** Net energy (the budget figure), joules; `undefined` when the test measured nothing. */
  readonly valueJ?: number
  /** The lower bound of the figure's 95% interval, when it has one, joules. */
  readonly lowJ?: number
  /** The upper bound of the figure's 95% interval, when it has one, joules. */
  readonly highJ?: number
  /** Device model, when known. */
  readonly device?: string
  /**
   * The test asked for a budget: it called `toStayWithinBudget()` or ran with `checkBudgets`.
   * `unknown` for results recorded by hand (Jest's `recordEnergy()`), where nothing can tell:
   * `-u` writes theirs, the runner's `new` mode does not.
   */
  readonly requested?: boolean | 'unknown'
}

/** A budget entry named by its keys. */
export interface BudgetRef {
  readonly file: string
  readonly name: string
  readonly device: string
}

export interface BudgetUpdate {
  readonly file: BudgetFile
  readonly added: readonly BudgetRef[]
  readonly changed: readonly BudgetRef[]
  readonly removed: readonly BudgetRef[]
}

/**
 * Entries of test files that ran in this run whose test no longer exists there. Files that did
 * not run (a filtered run, another shard) are never judged.
 */
export function obsoleteBudgets(
  file: BudgetFile,
  observations: readonly BudgetObservation[],
): BudgetRef[] {
  const ran = new Set(observations.map((o) => o.file))
  const seen = new Set(observations.map((o) => `${o.file}\u0000${o.name}`))
  const out: BudgetRef[] = []
  for (const [testFile, names] of Object.entries(file.tests)) {
    if (!ran.has(testFile)) continue
    for (const [name, devices] of Object.entries(names)) {
      if (seen.has(`${testFile}\u0000${name}`)) continue
      for (const device of Object.keys(devices)) out.push({ file: testFile, name, device })
    }
  }
  return out
}

/**
 * `-u`, as for snapshots: writes a budget for every measured test that asked for one
 * (`toStayWithinBudget()`, `checkBudgets`) and has none, or whose measurement no longer fits the
 * one it has by the rule the check uses (over it, or inconclusive) — `measured × (1 +
 * headroomPct/100)`, rounded up to 2 significant digits, under its device model (`*` when
 * unknown) — and removes obsolete entries. A budget that still fits is kept byte for byte, its
 * stored measurement too, so `-u` with nothing changed changes nothing. `rewrite`
 * (`VITEST_ENERGY_UPDATE=rewrite`) rewrites every one from this run instead, to tighten budgets
 * after an improvement. A test that never asked gets none (its energy is reported, not budgeted)
 * and its entry, if it has one, is left as it is. A test whose net energy is not above its own
 * noise (at or below idle: the figure's interval reaches 0) gets none — a 0 J budget would fail
 * it on noise — and keeps one it already has.
 */
export function updateBudgets(
  file: BudgetFile,
  observations: readonly BudgetObservation[],
  headroomPct: number,
  options: { readonly rewrite?: boolean } = {},
): BudgetUpdate {
  const tests = copyTests(file)
  const added: BudgetRef[] = []
  const changed: BudgetRef[] = []
  for (const o of observations) {
    const entry = asksForBudget(o) ? entryFrom(o, headroomPct) : undefined
    if (entry === undefined) continue
    const device = o.device ?? ANY_DEVICE
    // The budget the check applies (the device's own, else the one for any device): kept while
    // the measurement fits it.
    const applied = lookupBudget(file, { file: o.file, name: o.name, device })
    if (applied !== undefined && options.rewrite !== true && stillFits(o, applied.entry)) continue
    const devices = ((tests[o.file] ??= {})[o.name] ??= {})
    const before = devices[device]
    if (before === undefined) added.push({ file: o.file, name: o.name, device })
    else if (before.energyJ !== entry.energyJ || before.measuredEnergyJ !== entry.measuredEnergyJ)
      changed.push({ file: o.file, name: o.name, device })
    devices[device] = entry
  }
  const removed = obsoleteBudgets(file, observations)
  const gone = new Set(removed.map((r) => `${r.file}\u0000${r.name}`))
  const kept: Tests = {}
  for (const [f, names] of Object.entries(tests)) {
    const left = Object.fromEntries(
      Object.entries(names).filter(([name]) => !gone.has(`${f}\u0000${name}`)),
    )
    if (Object.keys(left).length > 0) kept[f] = left
  }
  return { file: { schemaVersion: BUDGET_SCHEMA_VERSION, tests: kept }, added, changed, removed }
}

/**
 * The runner's `new` mode, as for snapshots: a budget (the same rule as {@link updateBudgets})
 * for each test that asked for one and has none for its device (nor for any device), and nothing
 * else — existing budgets stay as they are and obsolete ones stay (`-u` rewrites and removes).
 */
export function addMissingBudgets(
  file: BudgetFile,
  observations: readonly BudgetObservation[],
  headroomPct: number,
): BudgetUpdate {
  const tests = copyTests(file)
  const added: BudgetRef[] = []
  for (const o of observations) {
    if (o.requested !== true) continue
    const key = {
      file: o.file,
      name: o.name,
      ...(o.device === undefined ? {} : { device: o.device }),
    }
    // Looked up in the copy: a name that ran twice (Jest allows it) is written once.
    if (lookupBudget({ schemaVersion: BUDGET_SCHEMA_VERSION, tests }, key) !== undefined) continue
    const entry = entryFrom(o, headroomPct)
    if (entry === undefined) continue
    const device = o.device ?? ANY_DEVICE
    ;((tests[o.file] ??= {})[o.name] ??= {})[device] = entry
    added.push({ file: o.file, name: o.name, device })
  }
  return {
    file: { schemaVersion: BUDGET_SCHEMA_VERSION, tests },
    added,
    changed: [],
    removed: [],
  }
}

type Tests = Record<string, Record<string, Record<string, BudgetEntry>>>

/** A copy of the file's entries that can be written to. */
function copyTests(file: BudgetFile): Tests {
  const tests: Tests = {}
  for (const [f, names] of Object.entries(file.tests)) {
    tests[f] = {}
    for (const [name, devices] of Object.entries(names)) tests[f][name] = { ...devices }
  }
  return tests
}

/**
 * Whether `-u` would write this test a budget: it asked for one (or recorded its results by hand,
 * where nothing can tell) and its net energy is above its noise. What the summary may promise.
 */
export function writesBudget(o: BudgetObservation): boolean {
  return asksForBudget(o) && entryFrom(o, 0) !== undefined
}

/** The check's verdict on the measurement against the budget is `within`. */
function stillFits(o: BudgetObservation, budget: BudgetEntry): boolean {
  if (o.valueJ === undefined) return true
  const interval =
    o.lowJ === undefined || o.highJ === undefined
      ? undefined
      : { low: o.lowJ, high: o.highJ, level: 0.95 }
  return decide(o.valueJ, budget.energyJ, interval, false).verdict === 'within'
}

/** Whether `-u` treats the test as asking for a budget: it did, or nothing can tell (`unknown`). */
function asksForBudget(o: BudgetObservation): boolean {
  return o.requested === true || o.requested === 'unknown'
}

/** The budget written from a measurement; none when the net energy is not above its noise. */
function entryFrom(o: BudgetObservation, headroomPct: number): BudgetEntry | undefined {
  if (o.valueJ === undefined || o.valueJ <= 0 || (o.lowJ !== undefined && o.lowJ <= 0))
    return undefined
  return {
    energyJ: budgetFromMeasurement(o.valueJ, headroomPct, o.highJ),
    measuredEnergyJ: roundSignificant(o.valueJ, 3),
  }
}
