/**
 * Which power source `power: 'auto'` measures with on a probed device, and why: the same rule the
 * device session applies when it picks its power collector (ODPM rails through perfetto; rails
 * listed by `dumpsys powerstats` without perfetto: two meter dumps per window; else the battery
 * fuel gauge), stated as data so that `vitest-energy doctor` can explain it before a run.
 */
import type { Capabilities } from './probe.js'

/** The collectors `power: 'auto'` can end up with. */
export type AutoPowerSource = 'odpm' | 'powerstats' | 'fuel-gauge'

export interface PowerSourceChoice {
  /** The source `auto` picks; `none` when the device offers none (a window fails to start). */
  readonly source: AutoPowerSource | 'none'
  /**
   * False when a window on this source would fail at its start: a fuel gauge whose unit or sign
   * the probe could not tell (read while charging), or no source at all
   * (`E_POWER_SOURCE_UNAVAILABLE`).
   */
  readonly usable: boolean
  /** Why this source and not a better one, one sentence each, most important first. */
  readonly reasons: readonly string[]
}

/** The choice `power: 'auto'` makes on a device with these capabilities. */
export function autoPowerSource(c: Capabilities): PowerSourceChoice {
  const rails = c.odpm.rails.length
  if (c.odpm.available && c.perfetto.available) {
    return {
      source: 'odpm',
      usable: true,
      reasons: [
        `${rails} ODPM rail${rails === 1 ? '' : 's'} (seen ${c.odpm.via === 'perfetto' ? 'in a perfetto android.power session' : 'in dumpsys powerstats'}), read by perfetto every 100 ms`,
        'the rails sit downstream of the battery: a charger does not disturb them',
      ],
    }
  }
  if (c.odpm.available) {
    return {
      source: 'powerstats',
      usable: true,
      reasons: [
        `${rails} ODPM rail${rails === 1 ? '' : 's'} listed by dumpsys powerstats, but no perfetto`,
        "two PowerStats HAL dumps per window: each window's energy per rail is exact, its shape inside the window is not known",
      ],
    }
  }
  const noRails = 'no ODPM rails (dumpsys powerstats lists no channels, perfetto records none)'
  if (!c.fuelGauge.available) {
    return {
      source: 'none',
      usable: false,
      reasons: [noRails, 'and the battery fuel gauge is not readable over adb'],
    }
  }
  if (c.fuelGauge.dischargeAmperesPerUnit === undefined) {
    return {
      source: 'fuel-gauge',
      usable: false,
      reasons: [
        noRails,
        c.fuelGauge.currentUnit === 'unknown'
          ? 'the fuel gauge read 0, so its unit is unknown'
          : 'the fuel gauge was read while charging, so the sign of current_now cannot be told',
      ],
    }
  }
  return {
    source: 'fuel-gauge',
    usable: true,
    reasons: [
      noRails,
      "the battery fuel gauge refreshes every 0.2–10 s depending on its chip (most every second): one figure for the whole phone, no per-rail split; methods get the CPU model's energy (see the power profile)",
    ],
  }
}
