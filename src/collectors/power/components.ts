/**
 * The rest of a phone without power rails, as modelled rails: the screen, Wi-Fi, cellular, GPS and
 * Bluetooth priced from the battery history's component states with the phone's power profile
 * (PETrA's model, Di Nucci et al. 2017), each a cumulative rail that the product uses exactly like
 * ODPM's component rails (per-component energy, `findInitiators` over the radio and GPS rails).
 * The CPU is not among them (the CPU power model prices it from the schedule), nor the phone's
 * idle and awake floor (the idle baseline holds it).
 */
import type { HistoryTimeline } from '../../formats/batterystats/index.js'
import type { PowerProfile } from '../../formats/power-profile/index.js'
import type { ClockName, RailReading, RailSeries } from '../../model/index.js'
import {
  COMPONENT_STATE_NAMES,
  COMPONENT_STATES,
  componentCurrentsMa,
  modelCurrents,
  stateChangeTimes,
  sweepStates,
  type ModelledComponent,
} from './batterystats.js'

/** `RailSeries.source` of the modelled component rails. */
export const COMPONENT_RAIL_SOURCE = 'batterystats-model'

/**
 * Each modelled component's rail name and subsystem. `componentOfRail` (src/attribution) maps a
 * rail by its subsystem first: `Display` → screen, `WLAN` → wifi, `Modem` → cellular, `GPS` → gps,
 * `Bluetooth` → bluetooth (test/collectors/components.test.ts checks each).
 */
export const MODELLED_COMPONENT_RAILS: Readonly<
  Record<ModelledComponent, { readonly rail: string; readonly subsystem: string }>
> = {
  screen: { rail: 'MODEL_DISPLAY', subsystem: 'Display (modelled)' },
  wifi: { rail: 'MODEL_WLAN', subsystem: 'WLAN (modelled)' },
  cellular: { rail: 'MODEL_MODEM', subsystem: 'Modem (modelled)' },
  gps: { rail: 'MODEL_GNSS', subsystem: 'GPS (modelled)' },
  bluetooth: { rail: 'MODEL_BT', subsystem: 'Bluetooth (modelled)' },
}

const COMPONENTS = Object.keys(MODELLED_COMPONENT_RAILS) as ModelledComponent[]

/** History times are whole milliseconds. */
const HISTORY_RESOLUTION_NS = 1e6

/** The screen's exact brightness from an instant on, when the caller read it (not the history's bin). */
export interface BrightnessChange {
  /** On the span's clock, ns. */
  readonly tNs: number
  /**
   * Where the brightness lies between `screen.on` (0) and `screen.on` + `screen.full` (1): e.g.
   * `settings get system screen_brightness` / 255, or the brightness `dumpsys display` reports.
   */
  readonly fraction: number
}

export interface ComponentRailsOptions {
  /** Added to the history's axis (ns) to get the span's clock (ns). */
  readonly offsetNs: number
  /** The clock of the span and of the rails. @default 'boottime' */
  readonly clock?: ClockName
  /** Battery voltage for every reading, V. @default the history's `volt=` (the first one before it), else `nominalVoltageV` */
  readonly voltageV?: number
  /** Voltage when the history has no `volt=`, V. @default 3.85 */
  readonly nominalVoltageV?: number
  /**
   * The screen's exact brightness changes, on the span's clock. From the first on they replace the
   * history's five bins; before it the bin is used. @default none
   */
  readonly brightness?: readonly BrightnessChange[]
}

/**
 * The components the history shows, as cumulative rails over `span` (J, `kind: 'cumulative'`,
 * source `batterystats-model`): power is piecewise constant between state changes, so a reading
 * falls on each state change, voltage reading and brightness change inside the span, 1 ms after
 * each (the history's resolution: the change happened in that millisecond, which is where
 * `findInitiators` looks for its cause) and on both edges of the span, the same times on every
 * rail; the energy between two readings is the model's, exactly.
 *
 * What each component's current is (`modelCurrents`, from `profile`):
 * - screen (`MODEL_DISPLAY`): while `screen`, `screen.on` + `screen.full` × the brightness — the
 *   exact level when `options.brightness` gives it, else the history's bin priced (bin + 0.5) / 5
 *   as BatteryStats does (no bin printed yet is dark); while `screen_doze` with the screen off,
 *   `ambient.on`.
 * - Wi-Fi (`MODEL_WLAN`): `wifi.active` (else `wifi.controller.tx`) while `wifi_radio`, plus
 *   `wifi.on` while `wifi_running` and `wifi.scan` while `wifi_scan`.
 * - cellular (`MODEL_MODEM`): `radio.active` (else the middle `modem.controller.tx` level) while
 *   `mobile_radio`.
 * - GPS (`MODEL_GNSS`): `gps.on` (else `gps.signalqualitybased` at the history's
 *   `gps_signal_quality`, poor unless it says good) while `gps`.
 * - Bluetooth (`MODEL_BT`): `bluetooth.controller.idle` (else `bluetooth.on`) while `bluetooth`,
 *   plus `bluetooth.controller.rx` (else `bluetooth.active`) while `ble_scan`.
 *
 * A component "shows" when one of its states occurs anywhere in the timeline; it gets a rail even
 * when it drew nothing in the span. Outside the timeline's records (before the first) no state is
 * known and nothing is charged, so the caller reads a history that reaches back before the span.
 *
 * PETrA's limit: the history cannot tell a radio's active period from its tail. `wifi_radio` and
 * `mobile_radio` follow the network interface's activity notifications, which the radio sends when
 * its inactivity timer expires, so the flag stays on through the tail (seconds on LTE) and the
 * whole span is charged the active current: tails are overestimated (a real tail draws the
 * lower receive/idle level) and transmit peaks above the active figure are flattened. The
 * energy still starts when the method that switched the radio on ran, which is what
 * `findInitiators` needs.
 */
export function componentRails(
  timeline: HistoryTimeline,
  profile: PowerProfile,
  span: { readonly startNs: number; readonly endNs: number },
  options: ComponentRailsOptions,
): RailSeries[] {
  if (!(span.endNs > span.startNs)) return []
  const present = new Set<string>()
  for (const i of timeline.intervals) present.add(i.name)
  const shown = COMPONENTS.filter((c) => COMPONENT_STATES[c].some((name) => present.has(name)))
  if (shown.length === 0) return []
  const offset = options.offsetNs
  const brightness = (options.brightness ?? [])
    .filter((b) => Number.isFinite(b.tNs) && Number.isFinite(b.fraction))
    .map((b) => ({ tNs: b.tNs - offset, fraction: Math.min(1, Math.max(0, b.fraction)) }))
    .sort((a, b) => a.tNs - b.tNs)
  const fromNs = span.startNs - offset
  const toNs = span.endNs - offset
  const changes = stateChangeTimes(
    timeline,
    COMPONENT_STATE_NAMES,
    fromNs,
    toNs,
    brightness.map((b) => b.tNs),
  )
  // And 1 ms (the history's resolution) after each change: a burst's first reading interval is the
  // millisecond it began in, so findInitiators looks for its cause there and before, not in
  // whatever ran while the component stayed on.
  const times = [
    ...new Set([
      ...changes,
      ...changes
        .filter((t) => t !== fromNs && t + HISTORY_RESOLUTION_NS < toNs)
        .map((t) => t + HISTORY_RESOLUTION_NS),
    ]),
  ].sort((a, b) => a - b)
  const currents = modelCurrents(profile)
  const nominalV = options.nominalVoltageV ?? 3.85
  const readings = new Map<ModelledComponent, RailReading[]>(shown.map((c) => [c, []]))
  const cumulativeJ = new Map<ModelledComponent, number>(shown.map((c) => [c, 0]))
  // The current (mA) and voltage from the previous reading on.
  let currentMa: Record<ModelledComponent, number> | undefined
  let volts = 0
  let previousNs = 0
  let bi = 0
  let exact: number | undefined
  for (const step of sweepStates(timeline, COMPONENT_STATE_NAMES, times)) {
    for (const c of shown) {
      const wattS = ((currentMa?.[c] ?? 0) / 1000) * volts * ((step.tNs - previousNs) / 1e9)
      const j = (cumulativeJ.get(c) ?? 0) + wattS
      cumulativeJ.set(c, j)
      readings.get(c)?.push({ tNs: step.tNs + offset, energyJ: j })
    }
    for (; bi < brightness.length && (brightness[bi]?.tNs ?? Infinity) <= step.tNs; bi++)
      exact = brightness[bi]?.fraction
    currentMa = componentCurrentsMa(step.on, currents, exact)
    volts = options.voltageV ?? step.voltageV ?? nominalV
    previousNs = step.tNs
  }
  return shown.map((c) => ({
    kind: 'cumulative',
    rail: MODELLED_COMPONENT_RAILS[c].rail,
    subsystem: MODELLED_COMPONENT_RAILS[c].subsystem,
    source: COMPONENT_RAIL_SOURCE,
    clock: options.clock ?? 'boottime',
    readings: readings.get(c) ?? [],
  }))
}
