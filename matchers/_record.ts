/**
 * Where a matcher's check goes: to the test it runs in, when that test measures energy, so the
 * reporter can show the limit beside the test (docs/reporter.md, "Matcher limits").
 *
 * The runner adapters — Vitest's `energy` fixture and the Jest environment, through
 * `TestEnergy` — register the running test for as long as it runs (`recordLimitsFor`, undone when
 * the test ends). A matcher finds its test by what both runners put in the matcher state
 * (`this.testPath`, `this.currentTestName`: the file and the full name of the test running the
 * `expect`). So the registry holds only the tests running now in this worker, each under its own
 * name; a matcher outside such a test (a plain EnergyResult in a unit test, another worker's
 * test) finds no entry and records nothing.
 *
 * `toStayWithinBudget()` also says that its test asks for a budget (`recordBudgetRequest`), which
 * the reporter writes in the runner's `new` mode when the test has none (docs/budgets.md); the
 * answer says whether a reporter of this run will write it.
 */
import type { BudgetWriter } from '../src/budgets/index.js'
import type { LimitCheck } from '../src/model/index.js'

/** A test as the matcher state names it. */
export interface RecordedTest {
  /** Absolute path of the test file (`expect.getState().testPath`). */
  readonly testPath: string
  /**
   * The test's full name as the runner's matcher state has it: Vitest joins describe blocks and
   * test with ` > ` (`task.fullTestName`), Jest with spaces.
   */
  readonly testName: string
}

/**
 * Receives a test's checks. `judged`: the objects the matcher read (a method's `MethodEnergy`, the
 * same object as in the test's results), so the test can tell which window a method was in.
 */
export type LimitSink = (check: LimitCheck, judged: readonly object[]) => void

/** The matcher state fields both runners set (Vitest's `MatcherState`, Jest's `expect.getState()`). */
interface MatcherTestState {
  readonly testPath?: unknown
  readonly currentTestName?: unknown
}

/** Takes a test's budget request; says what this run's energy reporter does with budgets. */
export type BudgetRequestSink = () => BudgetWriter

interface Recorder {
  readonly sink: LimitSink
  readonly onBudgetRequest: BudgetRequestSink | undefined
}

const running = new Map<string, Recorder>()

function keyOf(testPath: string, testName: string): string {
  return `${testPath}\u0000${testName}`
}

/**
 * Sends the checks of matchers run in `test` to `sink`, and budget requests to `onBudgetRequest`,
 * until the returned function is called (when the test ends). A later registration of the same
 * test (a retry) replaces it; undoing an old one then leaves the new one in place.
 */
export function recordLimitsFor(
  test: RecordedTest,
  sink: LimitSink,
  onBudgetRequest?: BudgetRequestSink,
): () => void {
  const key = keyOf(test.testPath, test.testName)
  const recorder: Recorder = { sink, onBudgetRequest }
  running.set(key, recorder)
  return () => {
    if (running.get(key) === recorder) running.delete(key)
  }
}

/** Records a matcher's check for the test its `expect` runs in; nothing outside a measured test. */
export function recordLimit(
  state: MatcherTestState,
  check: LimitCheck,
  judged: readonly object[] = [],
): void {
  recorderOf(state)?.sink(check, judged)
}

/**
 * Says that the test the `expect` runs in asks for a budget, and returns what this run's energy
 * reporter does with it: `writes` (a missing one is written), `off` (its `updateBudgets: false`),
 * `absent` (no energy reporter); undefined outside a measured test (no fixture to ask).
 */
export function recordBudgetRequest(state: MatcherTestState): BudgetWriter | undefined {
  const recorder = recorderOf(state)
  if (recorder === undefined) return undefined
  return recorder.onBudgetRequest?.() ?? 'absent'
}

function recorderOf(state: MatcherTestState): Recorder | undefined {
  const { testPath, currentTestName } = state
  if (typeof testPath !== 'string' || typeof currentTestName !== 'string') return undefined
  return running.get(keyOf(testPath, currentTestName))
}
