/**
 * ODPM rails without perfetto: the PowerStats HAL's cumulative energy meter read at the window's
 * start and at its stop (`dumpsys powerstats` for the channel list plus
 * `dumpsys android.hardware.power.stats.IPowerStats/default` for the meter table, parsed together
 * by `parseDumpsysPowerstats`). Each rail gets two readings; window energy per rail is their
 * difference. No shape inside the window: attribution can only spread it (linear interpolation).
 *
 * Clock: the meter table has no timestamp, so each dump is bracketed by two `/proc/uptime` reads
 * (CLOCK_BOOTTIME) and stamped with their midpoint; the true reading time is within ± half that
 * bracket (reported as a warning when it exceeds 50 ms). Precision: the HAL prints mWs with two
 * decimals after a float32 cast, ≈ 1 mWs once a rail has passed ~16 kJ since boot.
 */
import { parseProcUptime, shellScript } from '../../device/index.js'
import {
  meterReadingEnergyJ,
  parseDumpsysPowerstats,
  type PowerStatsMeterReading,
} from '../../formats/dumpsys/index.js'
import { EnergyError, type EnergyWarning, type RailSeries } from '../../model/index.js'
import { CollectorErrors } from '../errors.js'
import type { CollectorContext, PowerCollector, PowerData } from '../types.js'

const HAL_SERVICE = 'android.hardware.power.stats.IPowerStats/default'
const SCRIPT = `cat /proc/uptime; dumpsys powerstats; dumpsys ${HAL_SERVICE}; cat /proc/uptime`

/** One dump of the meter: when (boottime ns, midpoint and half-width) and what. */
export interface PowerstatsSnapshot {
  readonly tNs: number
  readonly uncertaintyNs: number
  readonly readings: readonly PowerStatsMeterReading[]
}

/**
 * Reads the output of the bracketed dump script. Throws `E_COLLECTOR_NO_POWER_DATA` when the
 * output has no energy-meter table the parser reads (it says which layout it saw instead).
 */
export function readPowerstatsSnapshot(stdout: string, serial?: string): PowerstatsSnapshot {
  const lines = stdout.replace(/\r/g, '').trimEnd().split('\n')
  const before = parseProcUptime(`${lines[0] ?? ''}\n`)
  const after = parseProcUptime(`${lines[lines.length - 1] ?? ''}\n`)
  if (before === undefined || after === undefined) {
    throw new EnergyError({
      code: CollectorErrors.RECORDER_FAILED,
      message: 'the powerstats dump was not bracketed by two /proc/uptime readings',
      hint: 'Run `adb shell cat /proc/uptime` to check the device answers; this is a bug otherwise.',
      ...(serial === undefined ? {} : { details: { serial } }),
    })
  }
  const body = lines.slice(1, -1).join('\n')
  const parsed = parseDumpsysPowerstats(body)
  if (parsed.meter === undefined || parsed.meter.readings.length === 0) {
    const uwsLines = body.split('\n').filter((l) => /Energy \(uWs\): \d+/.test(l)).length
    throw new EnergyError({
      code: CollectorErrors.NO_POWER_DATA,
      message:
        uwsLines > 0
          ? `dumpsys printed ${parsed.channels.length} channel(s) and ${uwsLines} "Energy (uWs):" line(s), a layout the powerstats parser does not read; no PowerStats HAL energy-meter table`
          : `dumpsys printed ${parsed.channels.length} channel(s) but no PowerStats HAL energy-meter table`,
      hint: `Check \`adb shell dumpsys ${HAL_SERVICE}\` prints the "PowerStats HAL 2.0 energy meter" table (Pixel 6+); otherwise use power: "fuel-gauge".`,
      details: { format: 'dumpsys powerstats', ...(serial === undefined ? {} : { serial }) },
    })
  }
  return {
    tNs: Math.round((before.deviceNs + after.deviceNs) / 2),
    uncertaintyNs: Math.round((after.deviceNs - before.deviceNs) / 2) + after.resolutionNs,
    readings: parsed.meter.readings,
  }
}

/** Pairs two snapshots into one two-reading cumulative series per rail. */
export function railsFromSnapshots(
  start: PowerstatsSnapshot,
  stop: PowerstatsSnapshot,
): { rails: RailSeries[]; warnings: EnergyWarning[] } {
  const warnings: EnergyWarning[] = []
  const first = new Map(start.readings.map((r) => [r.rail, r]))
  const rails: RailSeries[] = []
  for (const end of stop.readings) {
    const begin = first.get(end.rail)
    if (begin === undefined) {
      warnings.push({
        code: 'W_POWERSTATS_RAIL_CHANGED',
        severity: 'warning',
        message: `rail ${end.rail} appeared during the window and was skipped`,
      })
      continue
    }
    first.delete(end.rail)
    if (end.energyMws < begin.energyMws) {
      warnings.push({
        code: 'W_POWERSTATS_COUNTER_RESET',
        severity: 'warning',
        message: `rail ${end.rail}'s counter went backwards (${begin.energyMws} → ${end.energyMws} mWs; reboot or HAL restart) and was skipped`,
      })
      continue
    }
    rails.push({
      kind: 'cumulative',
      rail: end.rail,
      ...(end.subsystem === '' ? {} : { subsystem: end.subsystem }),
      source: 'powerstats',
      clock: 'boottime',
      readings: [
        { tNs: start.tNs, energyJ: meterReadingEnergyJ(begin) },
        { tNs: stop.tNs, energyJ: meterReadingEnergyJ(end) },
      ],
    })
  }
  for (const rail of first.keys()) {
    warnings.push({
      code: 'W_POWERSTATS_RAIL_CHANGED',
      severity: 'warning',
      message: `rail ${rail} disappeared during the window and was skipped`,
    })
  }
  const slack = Math.max(start.uncertaintyNs, stop.uncertaintyNs)
  if (slack > 50e6) {
    warnings.push({
      code: 'W_POWERSTATS_SLOW_DUMP',
      severity: 'info',
      message: `a powerstats dump took ${(slack * 2e-6).toFixed(0)} ms: its readings are placed at the midpoint, ± ${(slack * 1e-6).toFixed(0)} ms`,
    })
  }
  return { rails, warnings }
}

/** The powerstats fallback for ODPM: two meter dumps per window. */
export function powerstatsCollector(): PowerCollector {
  let begin: PowerstatsSnapshot | undefined

  const snapshot = async (context: CollectorContext): Promise<PowerstatsSnapshot> => {
    const out = await shellScript(context.device, SCRIPT)
    return readPowerstatsSnapshot(out.stdout, context.device.serial)
  }

  return {
    name: 'powerstats',
    async start(context) {
      begin = undefined
      begin = await snapshot(context)
    },
    async stop(context): Promise<PowerData> {
      const start = begin
      begin = undefined
      if (start === undefined) {
        throw new EnergyError({
          code: CollectorErrors.NOT_STARTED,
          message: 'the powerstats collector was stopped before it was started',
          hint: 'This is a bug in vitest-energy; please report it.',
        })
      }
      const { rails, warnings } = railsFromSnapshots(start, await snapshot(context))
      if (rails.length === 0) {
        throw new EnergyError({
          code: CollectorErrors.NO_POWER_DATA,
          message: 'no power rail was readable at both edges of the window',
          hint: 'See the warnings; use power: "fuel-gauge" if the rails keep changing.',
          details: { serial: context.device.serial },
        })
      }
      return { kind: 'rails', rails, warnings }
    },
    async abort() {
      begin = undefined
    },
  }
}
