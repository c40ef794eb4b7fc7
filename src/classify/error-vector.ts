/**
 * The error vector: which tests are energy-greedy ("failing" in SFL terms).
 * - `couto2014`: average power strictly above the mean average power of the knowledge base of
 *   earlier tests together with this run's tests (Couto 2014, §5.4).
 * - `budget`: energy strictly above the test's `budgetJ` (tests without a budget never are).
 * - `statistical`: the test's repetitions are significantly above the other tests' repetitions
 *   (one-sided Mann–Whitney, p < α).
 * - `override`: an explicit list of test ids.
 */
import { EnergyError } from '../model/index.js'
import { mannWhitneyU, toSamples } from '../stats/index.js'
import { ClassifyErrors } from './errors.js'
import {
  summarizeKnowledgeBase,
  type KnowledgeBaseScope,
  type KnowledgeBaseSummary,
} from './knowledge-base.js'
import type { TestSpectrum } from './spectrum.js'

export type ErrorVectorMode = 'couto2014' | 'budget' | 'statistical'

export const ERROR_VECTOR_MODES: readonly ErrorVectorMode[] = ['couto2014', 'budget', 'statistical']

export interface ErrorVectorOptions {
  /** @default 'couto2014' */
  readonly mode?: ErrorVectorMode
  /** Earlier tests' average powers, watts (couto2014). This run's tests are added to them. */
  readonly knowledgeBase?: readonly number[]
  readonly knowledgeBaseScope?: KnowledgeBaseScope
  /** Significance level for `statistical`. @default 0.05 */
  readonly alpha?: number
  /** Explicit excessive test ids; when given, the mode is `override`. */
  readonly excessive?: readonly string[]
}

export interface ErrorVector {
  readonly mode: ErrorVectorMode | 'override'
  /** Ids of the energy-greedy tests, in spectrum order. */
  readonly excessive: readonly string[]
  /** couto2014: the mean power the tests were compared against, watts. */
  readonly thresholdW?: number
  /** couto2014: the knowledge base before this run. */
  readonly knowledgeBase?: KnowledgeBaseSummary
}

/** Computes which tests are energy-greedy. */
export function errorVector(
  tests: readonly TestSpectrum[],
  options: ErrorVectorOptions = {},
): ErrorVector {
  if (options.excessive !== undefined) {
    const ids = new Set(tests.map((t) => t.id))
    for (const id of options.excessive) {
      if (!ids.has(id)) {
        throw new EnergyError({
          code: ClassifyErrors.UNKNOWN_TEST,
          message: `excessive lists '${id}', which is not a test id`,
          hint: 'List only ids of tests in the spectrum.',
        })
      }
    }
    const set = new Set(options.excessive)
    return { mode: 'override', excessive: tests.filter((t) => set.has(t.id)).map((t) => t.id) }
  }
  const mode = options.mode ?? 'couto2014'
  switch (mode) {
    case 'couto2014':
      return coutoErrorVector(tests, options.knowledgeBase ?? [], options.knowledgeBaseScope)
    case 'budget':
      return budgetErrorVector(tests)
    case 'statistical':
      return statisticalErrorVector(tests, options.alpha ?? 0.05)
    default:
      throw new EnergyError({
        code: ClassifyErrors.UNKNOWN_PRESET,
        message: `unknown error vector '${String(mode)}'`,
        hint: `Use one of: ${ERROR_VECTOR_MODES.join(', ')}.`,
      })
  }
}

function coutoErrorVector(
  tests: readonly TestSpectrum[],
  kb: readonly number[],
  scope: KnowledgeBaseScope | undefined,
): ErrorVector {
  // Summed in sorted order so the threshold (and so every colour) does not depend on the order
  // the tests arrive in: float addition is not associative.
  const pool = [...kb, ...tests.map((t) => t.averagePowerW)].sort((a, b) => a - b)
  const thresholdW = pool.reduce((s, v) => s + v, 0) / pool.length
  return {
    mode: 'couto2014',
    excessive: tests.filter((t) => t.averagePowerW > thresholdW).map((t) => t.id),
    thresholdW,
    knowledgeBase: summarizeKnowledgeBase(kb, scope),
  }
}

function budgetErrorVector(tests: readonly TestSpectrum[]): ErrorVector {
  if (!tests.some((t) => t.budgetJ !== undefined)) {
    throw new EnergyError({
      code: ClassifyErrors.NO_BUDGETS,
      message: 'error vector "budget" chosen but no test has a budgetJ',
      hint: 'Give tests an energy budget (budgetJ), or use the couto2014 error vector.',
    })
  }
  return {
    mode: 'budget',
    excessive: tests
      .filter((t) => t.budgetJ !== undefined && t.energyJ > t.budgetJ)
      .map((t) => t.id),
  }
}

function statisticalErrorVector(tests: readonly TestSpectrum[], alpha: number): ErrorVector {
  for (const t of tests) {
    if ((t.repetitionsPowerW?.length ?? 0) < 2) {
      throw new EnergyError({
        code: ClassifyErrors.NEEDS_REPETITIONS,
        message: `error vector "statistical" needs ≥ 2 repetitions per test; '${t.id}' has ${t.repetitionsPowerW?.length ?? 0}`,
        hint: 'Repeat each test (e.g. vitest --repeats) or use the couto2014 error vector.',
        details: { test: t.id },
      })
    }
  }
  if (tests.length < 2) {
    throw new EnergyError({
      code: ClassifyErrors.NEEDS_REPETITIONS,
      message:
        'error vector "statistical" compares each test with the rest of the suite, which needs ≥ 2 tests',
      hint: 'Use the couto2014 error vector for a single test.',
    })
  }
  const excessive = tests
    .filter((t) => {
      const rest = tests.filter((o) => o !== t).flatMap((o) => o.repetitionsPowerW ?? [])
      return (
        mannWhitneyU(toSamples(rest), toSamples(t.repetitionsPowerW ?? []), 'greater').pValue <
        alpha
      )
    })
    .map((t) => t.id)
  return { mode: 'statistical', excessive }
}
