/**
 * App models for the accuracy benchmark, generated in code from a seed:
 * - EDATA's random workload (§4.3, Algorithm 1): six classes with the same busy loop, each time step
 *   either sleeps or runs one class picked with per-run random probabilities;
 * - the accelerometer regression pair (EDATA §5.1): two builds differing in one method's cost.
 */
import { mulberry32 } from '../../src/stats/index.js'
import type { AppModel, MethodCall, Widget } from '../../src/virtual-device/index.js'

export const EDATA_PACKAGE = 'com.example.edata'
export const EDATA_CLASSES = 6

export function edataMethod(k: number): string {
  return `${EDATA_PACKAGE}.Workload${k + 1}.work`
}

export interface RandomWorkload {
  readonly app: AppModel
  /** `input tap x y` commands that start the whole schedule (one per run of busy steps). */
  readonly taps: readonly string[]
  /** Probability of each class being picked on a busy step (they sum to 1). */
  readonly classProbabilities: readonly number[]
  readonly sleepProbability: number
  /** Planned busy time per class, s (before CPU jitter). */
  readonly plannedBusyS: readonly number[]
  /** Delay from the taps to the first step, ms. */
  readonly leadMs: number
}

/**
 * EDATA Algorithm 1, scheduled up front: every run of consecutive busy steps becomes a 1 px widget
 * whose tap posts a one-shot `periodic` tick at the run's offset, so the schedule does not depend
 * on who advances the fast clock. `sleepProbability` is drawn from [0.2, 0.6] (EDATA does not give
 * its value); class probabilities are normalised uniform draws (EDATA: "randomly generates a
 * probability for each of the six classes").
 */
export function edataRandomWorkload(
  seed: number,
  intervalMs: number,
  durationS: number,
): RandomWorkload {
  const rnd = mulberry32(seed)
  const raw = Array.from({ length: EDATA_CLASSES }, () => 0.05 + rnd())
  const sum = raw.reduce((a, b) => a + b, 0)
  const probabilities = raw.map((p) => p / sum)
  const sleepProbability = 0.2 + 0.4 * rnd()
  const steps = Math.floor((durationS * 1000) / intervalMs)
  const leadMs = 50
  const planned = new Array<number>(EDATA_CLASSES).fill(0)
  const widgets: Widget[] = []
  const taps: string[] = []
  let run: MethodCall[] = []
  let runStart = 0
  const flush = (): void => {
    if (run.length === 0) return
    const k = widgets.length
    const x = k % 1000
    const y = Math.floor(k / 1000)
    widgets.push({
      contentDesc: `run-${k}`,
      bounds: [x, y, x + 1, y + 1],
      clickable: true,
      actions: {
        tap: { periodic: { everyMs: leadMs + runStart * intervalMs, count: 1, calls: run } },
      },
    })
    taps.push(`input tap ${x} ${y}`)
    run = []
  }
  for (let step = 0; step < steps; step++) {
    if (rnd() < sleepProbability) {
      flush()
      continue
    }
    let u = rnd()
    let k = 0
    while (k < EDATA_CLASSES - 1 && u >= (probabilities[k] ?? 0)) {
      u -= probabilities[k] ?? 0
      k++
    }
    if (run.length === 0) runStart = step
    run.push({ method: edataMethod(k), selfCpuMs: intervalMs, thread: 'main' })
    planned[k] = (planned[k] ?? 0) + intervalMs / 1000
  }
  flush()
  const app: AppModel = {
    package: EDATA_PACKAGE,
    launcherActivity: `${EDATA_PACKAGE}/.RandomActivity`,
    debuggable: false,
    profileable: true,
    screens: [{ id: 'random', activity: '.RandomActivity', widgets }],
  }
  return {
    app,
    taps,
    classProbabilities: probabilities,
    sleepProbability,
    plannedBusyS: planned,
    leadMs,
  }
}

export const ACCEL_PACKAGE = 'com.example.accel'
export const ACCEL_METHOD = `${ACCEL_PACKAGE}.SensorLogger.onSensorChanged`

/**
 * EDATA's accelerometer case as an app: tapping `~record` registers the accelerometer for 2 s and
 * processes 100 readings on the main thread; `costMs` is one reading's CPU cost (the build knob).
 * With `costBMs`, a second widget (`~record-b`, tapped with `ACCEL_TAP_B`) runs the same code at
 * build B's cost, so both builds can be measured on one phone, interleaved (as an A/B run
 * alternates builds on one device): the two widgets' calls differ only in that cost.
 */
export function accelerometerApp(costMs: number, costBMs?: number): AppModel {
  const record = (contentDesc: string, top: number, cost: number): Widget => ({
    contentDesc,
    className: 'android.widget.Button',
    bounds: [100, top, 980, top + 200],
    clickable: true,
    actions: {
      tap: {
        calls: [
          {
            method: `${ACCEL_PACKAGE}.SensorLogger.start`,
            selfCpuMs: 2,
            hardware: [{ kind: 'sensor', name: 'accelerometer', durationMs: 2000 }],
            children: [{ method: ACCEL_METHOD, selfCpuMs: cost, repeat: 100 }],
          },
        ],
      },
    },
  })
  return {
    package: ACCEL_PACKAGE,
    launcherActivity: `${ACCEL_PACKAGE}/.MainActivity`,
    debuggable: false,
    profileable: true,
    screens: [
      {
        id: 'main',
        activity: '.MainActivity',
        widgets: [
          record('record', 1000, costMs),
          ...(costBMs === undefined ? [] : [record('record-b', 1400, costBMs)]),
        ],
      },
    ],
  }
}

export const ACCEL_TAP = 'input tap 540 1100'
/** Taps build B's widget of `accelerometerApp(costA, costB)`. */
export const ACCEL_TAP_B = 'input tap 540 1500'
