/**
 * One test's energy, whichever runner runs it: the automatic window around the test (unless the
 * test measures explicit windows), `energy.measure()` / `repeat()` / `baseline()`, the budget
 * check once the windows are closed, and the test's raw data kept or dropped at the end.
 *
 * The runner adapters drive it while the test holds its phone's lease — Vitest's `energy` fixture,
 * the Jest environment's test events: `open()` when the test's body starts (or `prepare()` when
 * the test starts and `openAutoWindow()` at its body), `settleMeasurements()` then `close()` when
 * it and its hooks have run (they throw to fail the test), then, whatever happened, `abort()`, the
 * lease's release and `settle()`.
 */
import { join, relative } from 'node:path'
import { configureEnergyMatchers } from '../../matchers/index.js'
import { recordLimitsFor } from '../../matchers/_record.js'
import { idlePowerW, type Baseline } from '../attribution/index.js'
import { checkTestBudget, type BudgetWriter } from '../budgets/index.js'
import {
  EnergyError,
  isEnergyError,
  summarize,
  type EnergyResult,
  type LimitCheck,
  type MeasuredEnergyResult,
  type TestEnergyMeta,
} from '../model/index.js'
import { atCallSite, callSite } from './call-site.js'
import { ArtifactStore } from './artifacts.js'
import type { DeviceSession } from './device-session.js'
import { ProgressChannel, TestProgress } from './progress.js'
import { EnergyRun, RepeatedEnergyRun } from './run.js'
import { failedResult, type OpenWindow, type WindowBaseline, type WindowOutcome } from './window.js'

export interface RepeatOptions {
  /** Unmeasured runs first, to warm caches and JIT. @default 1 */
  readonly warmup?: number
  /** Idle time between repetitions so tails settle, ms. @default 1000 */
  readonly settleMs?: number
  /** Label of the windows. @default the test name */
  readonly label?: string
}

export interface EnergyApi {
  /** Measures `fn` in its own window. The first call replaces the automatic window. */
  measure<T>(fn: () => Promise<T> | T, options?: { readonly label?: string }): Promise<EnergyRun>
  /** Measures `fn` n times (after warm-up, with settle time between runs). */
  repeat(
    n: number | undefined,
    fn: () => Promise<unknown> | unknown,
    options?: RepeatOptions,
  ): Promise<RepeatedEnergyRun>
  /** Measures the idle phone for `durationMs` and uses it as the baseline for this test's windows. */
  baseline(options?: { readonly durationMs?: number }): Promise<EnergyRun>
  /** Every window this test has measured so far. */
  readonly results: readonly EnergyResult[]
}

/** The test, as the runner names it. */
export interface TestIdentity {
  /** Absolute path of the test file (budgets are looked up by it). */
  readonly filePath: string
  /** The test file relative to the project root (the raw data's folder). */
  readonly file: string
  /** The test's own name: the label of its automatic window and of its plain progress lines. */
  readonly name: string
  /**
   * The name budgets and raw data are kept under: describe blocks and test, as the runner joins
   * them — which is also the matcher state's `currentTestName`, under which the test's matchers
   * record their checks (Vitest: ` > `, Jest: spaces).
   */
  readonly fullName: string
}

export interface TestEnergyOptions {
  /** True in update mode (`-u`, VITEST_ENERGY_UPDATE=1): budgets are written, not checked. */
  readonly updateBudgets: () => boolean
  /**
   * What the run's energy reporter does with the budgets tests ask for (Vitest: it provides this;
   * Jest: its side-file folder is set). Unless it writes them, `toStayWithinBudget()` cannot pass
   * a missing budget in the runner's `new` mode: nothing would write it. @default 'absent'
   */
  readonly budgetWriter?: BudgetWriter
  /** The test's progress (the one its lease was taken with). @default plain lines on stderr */
  readonly progress?: TestProgress
  /**
   * The runner can take a test's energy after the test has ended (Vitest: the file's end carries
   * it to the reporter), so `close()` may leave the automatic window's end to the background
   * (option `windowEnd`). @default false
   */
  readonly lateResults?: boolean
}

/**
 * The error that fails a test file whose tests' windows could not be read after those tests
 * ended (their own results stand): the first, named, with what to do; undefined when none was
 * lost. `windows`: each test left behind and why its window failed (undefined: it was measured).
 */
export function windowsLostError(
  windows: ReadonlyArray<{ readonly test: string; readonly error: unknown }>,
): EnergyError | undefined {
  const failed = windows.filter((w) => w.error !== undefined)
  const first = failed[0]
  if (first === undefined) return undefined
  const cause = isEnergyError(first.error) ? first.error : undefined
  const more = failed.length > 1 ? ` (and ${failed.length - 1} more test(s) of this file)` : ''
  return new EnergyError({
    code: cause?.code ?? 'E_WINDOW_FAILED',
    message: `the energy window of '${first.test}' could not be read after the test ended${more}: ${plainMessage(first.error)}`,
    hint:
      cause?.hint ??
      "See the message; the test's own result stands. windowEnd: 'test' reads each window before its test ends, and fails that test instead.",
    ...(cause === undefined ? { cause: first.error } : {}),
  })
}

/** What happened, without the code and hint an `EnergyError`'s message carries around it. */
function plainMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  if (!isEnergyError(error)) return error.message
  return (error.message.replace(/^\[[A-Z0-9_]+\] /, '').split('\n  → ')[0] ?? '').trim()
}

/** What `close()` left running: the automatic window's end, read in the background. */
export interface WindowEndBehind {
  /** Settles once the window's result (or its failure) is among the test's results. */
  readonly settled: Promise<void>
  /** Why the window failed, once `settled`; undefined when it was measured. */
  readonly error: () => unknown
}

export class TestEnergy {
  /** Every window of the test, failed ones included (what the reporter receives). */
  readonly results: EnergyResult[] = []
  /** What the test's energy matchers checked, in call order (what the reporter shows as limits). */
  readonly limits: LimitCheck[] = []
  /** `toStayWithinBudget()` ran in the test (the reporter may write its budget: `new` mode). */
  private budgetRequested = false
  /** What the test calls. */
  readonly api: EnergyApi
  private readonly progress: TestProgress
  private auto: OpenWindow | undefined
  private testBaseline: Baseline | undefined
  /** Raw data of this test's windows, kept at the end when `artifacts` says so. */
  private readonly kept: ArtifactStore | undefined
  /** `open()` or `close()` failed: the test fails with that error. */
  private failed = false
  /** Stops recording the matchers' checks (set by `prepare()`, called by `abort()`). */
  private stopRecording: (() => void) | undefined
  /** The test's `measure`/`repeat`/`baseline` calls, until `settleMeasurements()` looks at them. */
  private readonly calls: TrackedCall[] = []
  /** Aborted when the test ends with a call still running: its window is abandoned. */
  private readonly ending = new AbortController()

  constructor(
    private readonly device: DeviceSession,
    private readonly test: TestIdentity,
    private readonly options: TestEnergyOptions,
  ) {
    this.progress =
      options.progress ??
      new TestProgress(ProgressChannel.for(undefined), {
        phone: device.serial,
        file: test.file,
        name: test.name,
      })
    this.kept =
      device.options.artifacts === 'never'
        ? undefined
        : new ArtifactStore(join(device.options.artifactsDir, '.staging'))
    this.api = this.withDistinctLabels(this.makeApi())
  }

  /**
   * Each `measure()`/`repeat()` call gets a label of its own: the second call labelled `scroll`
   * (the default label is the test's name) is `scroll (2)`. Budgets, the reporter and the baseline
   * comparison tell windows apart by label, and two repeat() calls sharing one were averaged
   * together as one workload. The API's promises are returned as they are (they know whether the
   * test awaits them).
   */
  private withDistinctLabels(api: EnergyApi): EnergyApi {
    const used = new Set<string>()
    const distinct = (wanted: string | undefined): string => {
      const base = wanted ?? this.test.name
      let label = base
      for (let k = 2; used.has(label); k++) label = `${base} (${k})`
      used.add(label)
      return label
    }
    return {
      results: api.results,
      measure: (fn, options) => api.measure(fn, { ...options, label: distinct(options?.label) }),
      repeat: (n, fn, options) =>
        api.repeat(n, fn, { ...options, label: distinct(options?.label) }),
      baseline: (options) => api.baseline(options),
    }
  }

  /** `prepare()`, then `openAutoWindow()`: for a runner that starts the test's energy at the body. */
  async open(): Promise<void> {
    this.prepare()
    await this.openAutoWindow()
  }

  /**
   * Sets the matchers' budget file, starts recording the checks of the test's energy matchers and
   * keeping the raw data of its windows.
   */
  prepare(): void {
    const { options } = this.device
    // Budgets (docs/budgets.md): toStayWithinBudget() reads the configured file.
    configureEnergyMatchers({ budgetsFile: options.budgets, inconclusive: options.inconclusive })
    this.stopRecording?.()
    this.stopRecording = recordLimitsFor(
      { testPath: this.test.filePath, testName: this.test.fullName },
      (check, judged) => this.limits.push(this.withWindow(check, judged)),
      () => {
        this.budgetRequested = true
        return this.options.budgetWriter ?? 'absent'
      },
    )
    const kept = this.kept
    if (kept !== undefined)
      this.device.artifactSink = (window, name, data) => kept.add(window, name, data)
  }

  /**
   * Opens the automatic window (option `autoWindow`), unless the test has measured a window of
   * its own already (in a `beforeEach` hook).
   */
  async openAutoWindow(): Promise<void> {
    if (!this.device.options.autoWindow || this.results.length > 0) return
    try {
      this.auto = await this.device.open(this.test.name, await this.baseline(), this.progress)
    } catch (error) {
      this.failed = true
      this.results.push(failedResult(this.test.name, error))
      throw error
    }
  }

  /**
   * After the test and its hooks: closes the automatic window and checks the test's budget
   * (option `checkBudgets`, not in update mode). Throws what should fail the test: a window that
   * could not close, a budget exceeded. When the test has failed already (`testFailed`), its
   * automatic window's failure is only recorded (its result says why): the test's own error is
   * the one to read, and it is printed once.
   *
   * With `windowEnd: 'background'` (and a runner that takes late results), a test whose verdict
   * does not need its window only ends it here: the result follows in the returned `behind`,
   * while the next test runs. What fails then is the caller's to report.
   */
  async close(
    options: { readonly testFailed?: boolean } = {},
  ): Promise<{ readonly behind?: WindowEndBehind }> {
    const checkBudgets = this.device.options.checkBudgets && !this.options.updateBudgets()
    try {
      const a = this.auto
      this.auto = undefined
      if (
        a !== undefined &&
        !checkBudgets &&
        this.options.lateResults === true &&
        this.device.options.windowEnd === 'background'
      ) {
        let result: Promise<MeasuredEnergyResult>
        try {
          ;({ result } = await a.end())
        } catch (error) {
          this.results.push(failedResult(this.test.name, error))
          if (options.testFailed !== true) throw error
          return {}
        }
        // What the report says if the window's data never arrives (the test process died).
        const at = this.results.length
        this.results.push({
          schemaVersion: 1,
          status: 'skipped',
          label: this.test.name,
          reason:
            "the window's end was still being read when its test process stopped (windowEnd: 'background')",
        })
        let failure: unknown
        const settled = result.then(
          (measured) => {
            this.results[at] = measured
          },
          (error: unknown) => {
            this.failed = true
            failure = error
            this.results[at] = failedResult(this.test.name, error)
          },
        )
        return { behind: { settled, error: () => failure } }
      }
      if (a !== undefined) {
        try {
          this.results.push(await a.close())
        } catch (error) {
          this.results.push(failedResult(this.test.name, error))
          if (options.testFailed !== true) throw error
        }
      }
      // Budgets (docs/budgets.md): check the test's net energy once its windows are closed.
      if (checkBudgets) {
        checkTestBudget(this.results, {
          testPath: this.test.filePath,
          name: this.test.fullName,
          budgetsFile: this.device.options.budgets,
          inconclusive: this.device.options.inconclusive,
        })
      }
    } catch (error) {
      this.failed = true
      throw error
    }
    return {}
  }

  /**
   * When the test's body and hooks have run, before `close()`: a `measure`/`repeat`/`baseline`
   * still running (not awaited, or awaited by a test that timed out) has its window abandoned —
   * after waiting up to `IN_FLIGHT_WAIT_MS` for its body to end, so the next test does not share
   * the phone with it — and the phone's window claim released. Throws E_MEASURE_NOT_AWAITED when
   * the test never awaited one of them.
   */
  async settleMeasurements(): Promise<void> {
    const calls = this.calls.splice(0)
    const running = calls.filter((c) => !c.settled)
    if (running.length > 0) {
      this.ending.abort(new Error('the test ended'))
      if (!(await settledWithin(running, IN_FLIGHT_WAIT_MS))) await this.device.abandonWindow()
      for (const c of running) {
        this.results.push({
          schemaVersion: 1,
          status: 'skipped',
          label: c.label,
          reason: c.promise.awaited
            ? `the test ended while ${c.call} was still running; its window was abandoned`
            : `${c.call} was not awaited: the test ended while it was still running; its window was abandoned`,
        })
      }
    }
    const unawaited = calls.filter((c) => !c.promise.awaited)
    const first = unawaited[0]
    if (first === undefined) return
    this.failed = true
    // A matcher given the promise has failed the test for it already (matchers/_subject.ts).
    if (unawaited.every((c) => REPORTED_UNAWAITED in c.promise)) return
    const error = new EnergyError({
      code: 'E_MEASURE_NOT_AWAITED',
      message:
        `${first.call} '${first.label}' was not awaited` +
        (first.settled && !running.includes(first)
          ? ': the test never saw its result or its error'
          : ': the test ended while it was still running, so its window was abandoned') +
        (unawaited.length > 1 ? ` (and ${unawaited.length - 1} more call(s))` : ''),
      hint: `Await it: \`const run = await ${first.call.replace('()', '(…)')}\`, then expect(run)…`,
    })
    throw atCallSite(error, first.site)
  }

  /**
   * Stops a window still open (the test failed before `close()`), the raw-data sink and the
   * recording of matcher checks. Never throws.
   */
  async abort(): Promise<void> {
    await this.settleMeasurements().catch(() => undefined)
    this.stopRecording?.()
    this.stopRecording = undefined
    await this.auto?.abort().catch(() => undefined)
    this.auto = undefined
    this.device.artifactSink = undefined
  }

  /**
   * The test's energy for the reporter: its windows (methods trimmed), its matchers' checks and
   * whether it asked for a budget (`toStayWithinBudget()`, or every test with `checkBudgets`).
   */
  summary(): TestEnergyMeta {
    return summarize(this.results, {
      limits: this.limits,
      budgetRequested: this.budgetRequested || this.device.options.checkBudgets,
    })
  }

  /** A method's check names the window the method was measured in (found by identity). */
  private withWindow(check: LimitCheck, judged: readonly object[]): LimitCheck {
    const target = check.target
    if (target === undefined || judged.length === 0 || target.window !== undefined) return check
    const labels = new Set(
      this.results.flatMap((r) =>
        r.status === 'measured' && judged.some((m) => (r.methods as readonly object[]).includes(m))
          ? [r.label.replace(/ #\d+$/, '')]
          : [],
      ),
    )
    const [window] = labels
    return labels.size === 1 && window !== undefined
      ? { ...check, target: { ...target, window } }
      : check
  }

  /**
   * Keeps the raw data (a failed test with `artifacts: 'on-failure'`, every test with `always`) or
   * drops it. Called after the lease is released: it only touches the host's disk.
   */
  async settle(testFailed: boolean): Promise<void> {
    const { options } = this.device
    const keep =
      options.artifacts === 'always' ||
      (options.artifacts === 'on-failure' &&
        (this.failed || testFailed || this.results.some((r) => r.status === 'failed')))
    const kept = this.kept
    if (kept === undefined) return
    const where = {
      dir: options.artifactsDir,
      testFile: this.test.file,
      testName: this.test.fullName,
    }
    if (!keep || kept.count === 0) {
      await kept.drop(where)
      return
    }
    // Never let a full disk hide the test's own outcome: say so and go on.
    await kept
      .keep(where)
      .then((folder) => {
        const shown = relative(process.cwd(), folder)
        this.progress.note(`raw data kept in ${shown.startsWith('..') ? folder : shown}`)
      })
      .catch((error: unknown) =>
        this.progress.note(`could not keep all the raw data: ${(error as Error).message}`),
      )
  }

  private async baseline(): Promise<WindowBaseline> {
    return this.testBaseline ?? (await this.device.baseline(this.progress))
  }

  private async dropAuto(): Promise<void> {
    const a = this.auto
    this.auto = undefined
    await a?.abort()
  }

  /** `idle`: the window of `energy.baseline()` — no app code to sample, and marked `idleBaseline`. */
  private async measuredOutcome<T>(
    call: string,
    label: string,
    fn: () => Promise<T> | T,
    idle = false,
  ): Promise<WindowOutcome<T>> {
    await this.dropAuto()
    // The test's own code failing inside the window is the test's error, not the window's.
    let thrown: { readonly error: unknown } | undefined
    const body = async (): Promise<T> => {
      try {
        return await fn()
      } catch (error) {
        thrown = { error }
        throw error
      }
    }
    try {
      const out = await this.device.measure(label, await this.baseline(), body, this.progress, {
        execution: !idle,
        signal: this.ending.signal,
      })
      const outcome = idle
        ? { ...out, result: { ...out.result, idleBaseline: true as const } }
        : out
      this.results.push(outcome.result)
      return outcome
    } catch (error) {
      // Ended by `settleMeasurements()`, which records the window.
      if (this.ending.signal.aborted) throw error
      this.results.push(
        thrown !== undefined && thrown.error === error
          ? {
              schemaVersion: 1,
              status: 'skipped',
              label,
              reason: `the test failed inside ${call} before its window closed; the window was abandoned`,
            }
          : failedResult(label, error),
      )
      throw error
    }
  }

  /** A call of the test's API, watched until the test ends (`settleMeasurements()`). */
  private tracked<R>(call: string, label: string, work: () => Promise<R>): Promise<R> {
    const promise = new AwaitWatchingPromise<R>((resolve, reject) => {
      work().then(resolve, reject)
    })
    const entry: TrackedCall = { call, label, promise, settled: false, site: callSite() }
    // Watched with the base `then`, which does not count as the test awaiting it; a rejection the
    // test never sees fails it at its end (E_MEASURE_NOT_AWAITED), not as an unhandled rejection.
    const settle = (): void => {
      entry.settled = true
    }
    Promise.prototype.then.call(promise, settle, settle)
    this.calls.push(entry)
    return promise
  }

  private makeApi(): EnergyApi {
    const name = this.test.name
    return {
      results: this.results,
      measure: (fn, options) => {
        const label = options?.label ?? name
        return this.tracked('energy.measure()', label, async () => {
          const outcome = await this.measuredOutcome('energy.measure()', label, fn)
          return new EnergyRun(outcome.result)
        })
      },
      repeat: (n, fn, options = {}) =>
        this.tracked('energy.repeat()', options.label ?? name, () => this.repeat(n, fn, options)),
      baseline: (options) =>
        this.tracked('energy.baseline()', 'idle baseline', () => this.measureBaseline(options)),
    }
  }

  private async repeat(
    n: number | undefined,
    fn: () => Promise<unknown> | unknown,
    options: RepeatOptions,
  ): Promise<RepeatedEnergyRun> {
    const count = n ?? this.device.options.repeats
    const label = options.label ?? this.test.name
    await this.dropAuto()
    for (let i = 0; i < (options.warmup ?? 1); i++) await fn()
    const runs: MeasuredEnergyResult[] = []
    try {
      for (let i = 0; i < count; i++) {
        const repetition = `repetition ${i + 1}/${count}`
        if (count > 1) this.progress.within(repetition, repetition)
        await sleep(options.settleMs ?? 1000)
        const outcome = await this.measuredOutcome('energy.repeat()', `${label} #${i + 1}`, fn)
        runs.push(outcome.result)
      }
    } finally {
      this.progress.within(undefined)
    }
    return new RepeatedEnergyRun(runs)
  }

  private async measureBaseline(options?: { readonly durationMs?: number }): Promise<EnergyRun> {
    const durationMs = options?.durationMs ?? this.device.idleWindowMs
    // An idle window: nothing of the app's to sample, and not the test's work.
    const idle = await this.measuredOutcome(
      'energy.baseline()',
      'idle baseline',
      () => sleep(durationMs),
      true,
    )
    // The idle level, not the mean: work still running at the start must not raise it.
    this.testBaseline = {
      kind: 'configured',
      powerW: idlePowerW({
        window: idle.result.window,
        power: idle.power.kind === 'series' ? idle.power.series : idle.power.rails,
      }),
    }
    return new EnergyRun(idle.result)
  }
}

/** How long a test's end waits for a call it left running before abandoning its window. */
const IN_FLIGHT_WAIT_MS = 5000

/** A `measure`/`repeat`/`baseline` call of the test. */
interface TrackedCall {
  /** `energy.measure()`, … */
  readonly call: string
  readonly label: string
  readonly promise: AwaitWatchingPromise<unknown>
  settled: boolean
  /** Where the test called it (`callSite()`): an error about the call points there. */
  readonly site: string
}

/** Set by a matcher that received the promise itself (matchers/_subject.ts). */
const REPORTED_UNAWAITED = Symbol.for('vitest-energy.reportedUnawaited')

/**
 * The promise the test's API returns: it knows whether the test awaited it. `await` on a subclass
 * of Promise calls its `then` (a plain Promise's is bypassed), as do `.catch`, `.finally`,
 * `Promise.all` and `expect(…).resolves`.
 */
class AwaitWatchingPromise<T> extends Promise<T> {
  static override get [Symbol.species](): PromiseConstructor {
    return Promise
  }

  awaited = false

  override then<A = T, B = never>(
    onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
    onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    this.awaited = true
    return super.then(onFulfilled, onRejected)
  }
}

/** Whether every call settled within `ms`. */
async function settledWithin(calls: readonly TrackedCall[], ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const all = Promise.allSettled(
    calls.map(
      (c) =>
        new Promise<void>((resolve) => {
          Promise.prototype.then.call(
            c.promise,
            () => resolve(),
            () => resolve(),
          )
        }),
    ),
  ).then(() => true)
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  try {
    return await Promise.race([all, late])
  } finally {
    clearTimeout(timer)
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
