/**
 * Writing budgets from measurements (`vitest -u`, `VITEST_ENERGY_UPDATE=1`) and finding obsolete
 * entries. Pure: the reporter, the one writer, does the file I/O.
 */
import { ANY_DEVICE, BUDGET_SCHEMA_VERSION, type BudgetEntry, type BudgetFile } from './file.js'
import { budgetFromMeasurement, roundSignificant } from './figure.js'

/** One test as the run saw it. */
export interface BudgetObservation {
  readonly file: string
  readonly name: string
  /** Net energy (the budget figure), joules; `undefined` when the test measured nothing. */
  readonly valueJ?: number
  /** The lower bound of the figure's 95% interval, when it has one, joules. */
  readonly lowJ?: number
  /** Device model, when known. */
  readonly device?: string
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
 * Writes a budget for every measured test (`measured × (1 + headroomPct/100)`, rounded up to 2
 * significant digits) under its device model (`*` when unknown), and removes obsolete entries.
 * A test whose net energy is not above its own noise (at or below idle: the figure's interval
 * reaches 0) gets none — a 0 J budget would fail it on noise — and keeps one it already has.
 */
export function updateBudgets(
  file: BudgetFile,
  observations: readonly BudgetObservation[],
  headroomPct: number,
): BudgetUpdate {
  const tests: Record<string, Record<string, Record<string, BudgetEntry>>> = {}
  for (const [f, names] of Object.entries(file.tests)) {
    tests[f] = {}
    for (const [name, devices] of Object.entries(names)) tests[f][name] = { ...devices }
  }
  const added: BudgetRef[] = []
  const changed: BudgetRef[] = []
  for (const o of observations) {
    if (o.valueJ === undefined || o.valueJ <= 0 || (o.lowJ !== undefined && o.lowJ <= 0)) continue
    const device = o.device ?? ANY_DEVICE
    const names = (tests[o.file] ??= {})
    const devices = (names[o.name] ??= {})
    const entry: BudgetEntry = {
      energyJ: budgetFromMeasurement(o.valueJ, headroomPct),
      measuredEnergyJ: roundSignificant(o.valueJ, 3),
    }
    const before = devices[device]
    if (before === undefined) added.push({ file: o.file, name: o.name, device })
    else if (before.energyJ !== entry.energyJ || before.measuredEnergyJ !== entry.measuredEnergyJ)
      changed.push({ file: o.file, name: o.name, device })
    devices[device] = entry
  }
  const removed = obsoleteBudgets(file, observations)
  const gone = new Set(removed.map((r) => `${r.file}\u0000${r.name}`))
  const kept: Record<string, Record<string, Record<string, BudgetEntry>>> = {}
  for (const [f, names] of Object.entries(tests)) {
    const left = Object.fromEntries(
      Object.entries(names).filter(([name]) => !gone.has(`${f}\u0000${name}`)),
    )
    if (Object.keys(left).length > 0) kept[f] = left
  }
  return { file: { schemaVersion: BUDGET_SCHEMA_VERSION, tests: kept }, added, changed, removed }
}
