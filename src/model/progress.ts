/**
 * A run's progress while it is under way: what each test's phone is doing. Test processes send
 * these events to the reporter in the main process (one JSON object per line over a loopback
 * socket: `src/session/progress.ts` → `reporter/progress.ts`), which draws one live status line in
 * a terminal. Without a reporter listening, the test processes print plain lines on stderr.
 * Nothing here is a result: progress is never stored.
 */

/** What a test's phone is doing now, in the words the status line shows. */
export type ProgressPhase =
  /** Another test (this worker's or another's) holds the phone. */
  | 'waiting for the phone'
  /** The test holds its phone and runs code outside any energy window (hooks, Appium, its body). */
  | 'running'
  /** The phone's idle baseline is measured (once per phone per run). */
  | 'baseline'
  /** Busy loops calibrate the CPU power model of a phone without rails (once per phone per run). */
  | 'calibrating'
  /** An energy window is open. */
  | 'recording'
  /** The window closed: waiting for the power source's last reading, stopping the recorders. */
  | 'stopping'
  /** simpleperf turns its recording into samples on the phone. */
  | 'converting samples'
  /** The ART method trace comes off the phone. */
  | 'pulling the method trace'
  /** Joules per test and per method are worked out on the host. */
  | 'attributing'

export const PROGRESS_PHASES: readonly ProgressPhase[] = [
  'waiting for the phone',
  'running',
  'baseline',
  'calibrating',
  'recording',
  'stopping',
  'converting samples',
  'pulling the method trace',
  'attributing',
]

/** How a step is said where no live line is drawn (CI, a log file, another reporter's window). */
export interface StepOptions {
  /** Shown after the phase on the live line: `repetition 2/5`, `12.0 MB`. */
  readonly detail?: string
  /** The plain line for this step, if it deserves one (read when it is printed). */
  readonly line?: string | (() => string)
  /** Print `line` only if the step still runs after this long: a quick step is not news. */
  readonly lineAfterMs?: number
}

/** A step that may be quick or slow gets a plain line only past this: a quick step is not news. */
export const SLOW_STEP_LINE_MS = 1000

/** What code working on a test's phone reports. */
export interface Progress {
  /** The phone is now in `phase`; the same phase again only updates its detail. */
  step(phase: ProgressPhase, options?: StepOptions): void
  /** A line worth keeping in the log whatever the terminal (where raw data was kept). */
  note(text: string): void
}

/** The test an event is about; `id` tells apart the tests of one test process. */
export interface ProgressTest {
  readonly id: number
  readonly phone: string
  /** The test file, relative to the project root. */
  readonly file: string
  /** The test's own name. */
  readonly name: string
}

/** One line on the progress socket. */
export type ProgressEvent =
  | {
      readonly kind: 'phase'
      readonly test: ProgressTest
      readonly phase: ProgressPhase
      readonly detail?: string
    }
  | { readonly kind: 'note'; readonly test: ProgressTest; readonly text: string }
  /** The test released its phone: it leaves the status line. */
  | { readonly kind: 'done'; readonly test: ProgressTest }

/** Where Vitest's reporter provides the socket's port to test processes (`provide`/`inject`). */
export const PROGRESS_PROVIDE_KEY = 'vitestEnergyProgress'
/** Where Jest's reporter hands the socket's port to test processes (they inherit the env). */
export const PROGRESS_PORT_ENV = 'VITEST_ENERGY_PROGRESS_PORT'

/** Longest string field accepted from the socket (names are cut on the line anyway). */
const MAX_FIELD_CHARS = 1000

/** Reads one line from the socket; anything that is not a well-formed event is `undefined`. */
export function parseProgressEvent(line: string): ProgressEvent | undefined {
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch {
    return undefined
  }
  if (!isRecord(value)) return undefined
  const test = progressTest(value['test'])
  if (test === undefined) return undefined
  switch (value['kind']) {
    case 'phase': {
      const phase = value['phase']
      const detail = value['detail']
      if (!PROGRESS_PHASES.includes(phase as ProgressPhase)) return undefined
      if (detail !== undefined && !isField(detail)) return undefined
      return {
        kind: 'phase',
        test,
        phase: phase as ProgressPhase,
        ...(detail === undefined ? {} : { detail }),
      }
    }
    case 'note': {
      const text = value['text']
      return isField(text) ? { kind: 'note', test, text } : undefined
    }
    case 'done':
      return { kind: 'done', test }
    default:
      return undefined
  }
}

function progressTest(value: unknown): ProgressTest | undefined {
  if (!isRecord(value)) return undefined
  const { id, phone, file, name } = value
  if (typeof id !== 'number' || !Number.isSafeInteger(id)) return undefined
  if (!isField(phone) || !isField(file) || !isField(name)) return undefined
  return { id, phone, file, name }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function isField(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_FIELD_CHARS
}
