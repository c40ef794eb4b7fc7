/** Options shared by the energy-budget matchers, and the process-wide defaults. */
import { closestName, CommonErrors, EnergyError } from '../src/model/index.js'
import type { Scope, Stat } from './_subject.js'

export interface BudgetOptions {
  /** Which part of the window the budget applies to. @default 'net' */
  readonly scope?: Scope
  /** Over repeated windows: the mean (default), the median, or the upper bound of the mean's 95% interval. */
  readonly stat?: Stat
  /**
   * What to do when the budget lies inside the figure's 95% interval: fail with
   * "inconclusive: N more repetitions would decide", or decide by the point estimate and warn.
   * @default 'fail'
   */
  readonly inconclusive?: 'fail' | 'warn'
}

/** Process-wide matcher settings (the plugin sets them from config; Jest users call it in setup). */
export interface EnergyMatcherSettings {
  /** @default 'fail' */
  readonly inconclusive?: 'fail' | 'warn'
  /**
   * Budget file for `toStayWithinBudget()`: absolute, or relative to the project root (found by
   * walking up from the test file). @default 'energy-budgets.json'
   */
  readonly budgetsFile?: string
  /**
   * `true`: update mode, `toStayWithinBudget()` passes and the reporter writes budgets from
   * measurements (as `-u`); `false`: a missing budget fails (as in CI). @default the runner's
   * snapshot update mode: `-u` or VITEST_ENERGY_UPDATE=1 update; `new` (outside CI) passes a test
   * without a budget and the reporter writes it; `none` (CI) fails it
   */
  readonly updateBudgets?: boolean
}

let defaults: EnergyMatcherSettings & Required<Pick<EnergyMatcherSettings, 'inconclusive'>> = {
  inconclusive: 'fail',
}

/** Sets defaults for every energy matcher in this process (the plugin calls it from config). */
export function configureEnergyMatchers(options: EnergyMatcherSettings): void {
  defaults = { ...defaults, ...options }
}

export function matcherSettings(): EnergyMatcherSettings {
  return defaults
}

export function inconclusiveMode(options: BudgetOptions | undefined): 'fail' | 'warn' {
  return options?.inconclusive ?? defaults.inconclusive
}

/**
 * The options a matcher takes, each with what it may be: one of a few words, a finite number, or
 * a scope (`scopeMistake` checks those against the subject).
 */
export type OptionRules = Readonly<Record<string, readonly string[] | 'number' | 'scope'>>

export const STATS = ['mean', 'median', 'upper95'] as const satisfies readonly Stat[]
export const INCONCLUSIVE_MODES = ['fail', 'warn'] as const
/** The options of a matcher that judges one figure of a window or of repetitions, no scope. */
export const REPEATED_OPTION_RULES: OptionRules = { stat: STATS, inconclusive: INCONCLUSIVE_MODES }
export const BUDGET_OPTION_RULES: OptionRules = { scope: 'scope', ...REPEATED_OPTION_RULES }

/**
 * A mistake in a matcher's options (a misspelt name or word, an option this matcher does not
 * take): without this check it would be ignored, and the matcher would judge another figure than
 * the test asked for without a word.
 */
export function optionsMistake(
  options: unknown,
  rules: OptionRules,
  matcher: string,
): EnergyError | undefined {
  if (options === undefined) return undefined
  const names = Object.keys(rules)
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    return invalidOption(
      `${matcher}'s options must be an object ({ ${names.join(', ')} }); got ${JSON.stringify(options) ?? String(options)}`,
    )
  for (const [name, value] of Object.entries(options)) {
    const rule = rules[name]
    if (rule === undefined) {
      const near = closestName(name, names)
      return invalidOption(
        `${matcher} has no option '${name}'${near === undefined ? '' : ` (did you mean '${near}'?)`}; its options: ${names.join(', ')}`,
      )
    }
    if (value === undefined || rule === 'scope') continue
    if (rule === 'number') {
      if (typeof value !== 'number' || !Number.isFinite(value))
        return invalidOption(
          `${matcher}'s option ${name} must be a finite number; got ${JSON.stringify(value) ?? String(value)}`,
        )
      continue
    }
    if (typeof value !== 'string' || !rule.includes(value)) {
      const near = typeof value === 'string' ? closestName(value, rule) : undefined
      return invalidOption(
        `${matcher}'s option ${name} is ${JSON.stringify(value) ?? String(value)}, not one of ${rule.map((r) => `'${r}'`).join(', ')}${near === undefined ? '' : ` (did you mean '${near}'?)`}`,
      )
    }
  }
  return undefined
}

function invalidOption(message: string): EnergyError {
  return new EnergyError({
    code: CommonErrors.INVALID_OPTION,
    message,
    hint: 'Fix the option in the test; the matcher judged nothing.',
  })
}
