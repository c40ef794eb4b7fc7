/**
 * ODPM power rails as dumpsys prints them (Pixel 6 and later; any device with the AIDL PowerStats HAL).
 *
 * Two outputs, both Android 12+ (AIDL `android.hardware.power.stats` HAL):
 *
 * 1. `dumpsys powerstats` (framework PowerStatsService.dump, AOSP frameworks/base
 *    services/core/java/com/android/server/powerstats/PowerStatsService.java, android-12.0.0_r1
 *    and later): sections headed `PowerStatsService dumpsys: available PowerEntities`,
 *    `… available Channels`, `… available EnergyConsumers`, items unindented on Android 12/13
 *    (plain PrintWriter) and indented by two in later releases (IndentingPrintWriter, which also
 *    appends a `PowerStatsLogger stats` part):
 *    `PowerEntityId: 0, PowerEntityName: …` (+ `  StateId: 0, StateName: …`),
 *    `ChannelId: 0, ChannelName: S10M_VDD_TPU, ChannelSubsystem: TPU`,
 *    `EnergyConsumerId: 0, Ordinal: 0, Type: 2, Name: …`. It lists channels, not readings.
 * 2. `dumpsys android.hardware.power.stats.IPowerStats/default [delta]` (the HAL's own dump,
 *    hardware/google/pixel powerstats/PowerStats.cpp dumpEnergyMeter; the command androidx
 *    benchmark's PowerRail uses): the table between `============= PowerStats HAL 2.0 energy meter
 *    ==============` and `========== End of PowerStats HAL 2.0 energy meter ==========`, one line
 *    per channel `  %32s   %14.2f mWs` with the channel printed as `[NAME]:SUBSYSTEM`; with `delta`,
 *    an `Elapsed time: N ms` line and `(%14.2f)` deltas since the previous dump. Readings are the
 *    cumulative energy since boot; the HAL casts µWs to a 32-bit float before dividing by 1000, so
 *    large counters lose precision (≈ 1 mWs once a rail passes ~16 kJ).
 */
import { EnergyError } from '../../model/errors.js'
import { DumpsysErrors } from './errors.js'

const FORMAT = 'dumpsys powerstats'

export interface PowerStatsChannel {
  readonly id: number
  /** Rail name, e.g. `S10M_VDD_TPU`. */
  readonly name: string
  /** Subsystem, e.g. `TPU`, `CPU(BIG)`, `Display`. */
  readonly subsystem: string
}

export interface PowerStatsEntity {
  readonly id: number
  readonly name: string
  readonly states: ReadonlyArray<{ readonly id: number; readonly name: string }>
}

export interface PowerStatsEnergyConsumer {
  readonly id: number
  readonly ordinal: number
  /** EnergyConsumerType code (1 BLUETOOTH, 2 CPU_CLUSTER, 3 DISPLAY, 4 GNSS, 5 MOBILE_RADIO, 6 WIFI, 7 CAMERA; 0 OTHER). */
  readonly type: number
  readonly name: string
}

/** One energy-meter line of the HAL dump. */
export interface PowerStatsMeterReading {
  /** As printed: `[S10M_VDD_TPU]:TPU`. */
  readonly channel: string
  /** Rail name inside the brackets (the whole `channel` when it has no brackets). */
  readonly rail: string
  /** Text after `]:`, empty when absent. */
  readonly subsystem: string
  /** Cumulative energy since boot, mWs (= mJ), as printed (2 decimals, float32-rounded). */
  readonly energyMws: number
  /** With `delta`: energy since the previous dump, mWs. */
  readonly deltaMws?: number
}

export interface PowerStatsMeter {
  /** With `delta`: ms since the previous dump (BOOTTIME). */
  readonly elapsedMs?: number
  readonly readings: readonly PowerStatsMeterReading[]
}

export interface DumpsysPowerstats {
  readonly entities: readonly PowerStatsEntity[]
  readonly channels: readonly PowerStatsChannel[]
  readonly consumers: readonly PowerStatsEnergyConsumer[]
  /** Present when the input held the HAL energy-meter table. */
  readonly meter?: PowerStatsMeter
}

const SECTION = 'PowerStatsService dumpsys: available '
const METER_BEGIN = '============= PowerStats HAL 2.0 energy meter =============='
const METER_END = '========== End of PowerStats HAL 2.0 energy meter =========='

function badLine(line: number, text: string, what: string): never {
  throw new EnergyError({
    code: DumpsysErrors.POWERSTATS_BAD_LINE,
    message: `malformed ${what} line: ${JSON.stringify(text.trim().slice(0, 80))}`,
    hint: 'Pass the unmodified output of `adb shell dumpsys powerstats` or `dumpsys android.hardware.power.stats.IPowerStats/default`.',
    details: { format: FORMAT, line },
  })
}

type FrameworkItem =
  | { readonly kind: 'entity'; readonly id: number; readonly name: string }
  | { readonly kind: 'state'; readonly id: number; readonly name: string }
  | { readonly kind: 'channel'; readonly channel: PowerStatsChannel }
  | { readonly kind: 'consumer'; readonly consumer: PowerStatsEnergyConsumer }

function parseFrameworkItem(
  section: 'entities' | 'channels' | 'consumers',
  text: string,
): FrameworkItem | 'not-an-item' {
  if (section === 'entities') {
    const state = /^\s+StateId: (\d+), StateName: (.*)$/s.exec(text)
    if (state !== null) return { kind: 'state', id: Number(state[1]), name: state[2] ?? '' }
    const e = /^\s*PowerEntityId: (\d+), PowerEntityName: (.*)$/s.exec(text)
    return e === null ? 'not-an-item' : { kind: 'entity', id: Number(e[1]), name: e[2] ?? '' }
  }
  if (section === 'channels') {
    const c = /^\s*ChannelId: (\d+), ChannelName: (.*), ChannelSubsystem: (.*)$/s.exec(text)
    return c === null
      ? 'not-an-item'
      : { kind: 'channel', channel: { id: Number(c[1]), name: c[2] ?? '', subsystem: c[3] ?? '' } }
  }
  const c = /^\s*EnergyConsumerId: (\d+), Ordinal: (\d+), Type: (-?\d+), Name: (.*)$/s.exec(text)
  return c === null
    ? 'not-an-item'
    : {
        kind: 'consumer',
        consumer: { id: Number(c[1]), ordinal: Number(c[2]), type: Number(c[3]), name: c[4] ?? '' },
      }
}

/**
 * Parses `dumpsys powerstats` and/or the PowerStats HAL dump (both can be concatenated).
 * Unknown sections (PowerStatsLogger stats, state residencies, energy consumers' values) are skipped.
 */
export function parseDumpsysPowerstats(text: string): DumpsysPowerstats {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l))
  const entities: Array<{ id: number; name: string; states: Array<{ id: number; name: string }> }> =
    []
  const channels: PowerStatsChannel[] = []
  const consumers: PowerStatsEnergyConsumer[] = []
  let meter: { elapsedMs?: number; readings: PowerStatsMeterReading[] } | undefined
  let section: 'entities' | 'channels' | 'consumers' | 'meter' | 'other' = 'other'
  let sawFramework = false
  let meterClosed = true
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i] ?? ''
    const lineNo = i + 1
    if (text.startsWith(SECTION)) {
      sawFramework = true
      const what = text.slice(SECTION.length)
      section =
        what === 'PowerEntities'
          ? 'entities'
          : what === 'Channels'
            ? 'channels'
            : what === 'EnergyConsumers'
              ? 'consumers'
              : 'other'
      continue
    }
    if (text === METER_BEGIN) {
      section = 'meter'
      meter = { readings: [] }
      meterClosed = false
      continue
    }
    if (text === METER_END) {
      section = 'other'
      meterClosed = true
      continue
    }
    if (text.trim() === '') continue
    if (section === 'entities' || section === 'channels' || section === 'consumers') {
      // Android 12/13 print items unindented (plain PrintWriter); later releases indent them by two
      // (IndentingPrintWriter). An unindented line that is not an item ends the section.
      const item = parseFrameworkItem(section, text)
      if (item === 'not-an-item') {
        if (/^\S/.test(text)) {
          section = 'other'
          continue
        }
        badLine(
          lineNo,
          text,
          section === 'entities'
            ? 'PowerEntity'
            : section === 'channels'
              ? 'Channel'
              : 'EnergyConsumer',
        )
      }
      if (item.kind === 'state') {
        const last = entities.at(-1)
        if (last === undefined) badLine(lineNo, text, 'StateId (before any PowerEntityId)')
        last.states.push({ id: item.id, name: item.name })
      } else if (item.kind === 'entity') entities.push({ id: item.id, name: item.name, states: [] })
      else if (item.kind === 'channel') channels.push(item.channel)
      else consumers.push(item.consumer)
      continue
    }
    if (/^\S/.test(text) && section !== 'meter') {
      section = 'other'
      continue
    }
    switch (section) {
      case 'meter': {
        if (meter === undefined) break
        const elapsed = /^Elapsed time: (\d+) ms/.exec(text)
        if (elapsed !== null) {
          meter.elapsedMs = Number(elapsed[1])
          break
        }
        if (/^\s+Channel\s+Cumulative Energy/.test(text)) break
        const r = /^\s*(\S(?:.*\S)?)\s+(-?\d+\.\d+) mWs(?: \(\s*(-?\d+\.\d+)\))?$/s.exec(text)
        if (r === null) badLine(lineNo, text, 'energy meter')
        const channel = r[1] ?? ''
        const bracket = /^\[(.*)\]:?(.*)$/s.exec(channel)
        meter.readings.push({
          channel,
          rail: bracket === null ? channel : (bracket[1] ?? ''),
          subsystem: bracket === null ? '' : (bracket[2] ?? ''),
          energyMws: Number(r[2]),
          ...(r[3] === undefined ? {} : { deltaMws: Number(r[3]) }),
        })
        break
      }
      case 'other':
        break
    }
  }
  if (!meterClosed) {
    throw new EnergyError({
      code: DumpsysErrors.POWERSTATS_TRUNCATED,
      message: 'the PowerStats HAL energy meter table has no end marker',
      hint: 'The output was cut off; dump again and pass it whole.',
      details: { format: FORMAT, line: lines.length },
    })
  }
  if (!sawFramework && meter === undefined) {
    const missing = lines.find((l) => /^Can't find service: /.test(l))
    throw new EnergyError({
      code:
        missing === undefined ? DumpsysErrors.POWERSTATS_NOT_FOUND : DumpsysErrors.SERVICE_MISSING,
      message:
        missing === undefined
          ? 'no "PowerStatsService dumpsys" sections and no PowerStats HAL energy meter table'
          : `the device has no power stats service (${missing})`,
      hint: 'ODPM rails need an AIDL PowerStats HAL (Pixel 6+). Use `dumpsys powerstats` for the channel list and `dumpsys android.hardware.power.stats.IPowerStats/default` for readings; otherwise fall back to the fuel gauge.',
      details: { format: FORMAT },
    })
  }
  return { entities, channels, consumers, ...(meter === undefined ? {} : { meter }) }
}

/**
 * Writes the framework's `dumpsys powerstats` sections (entities, channels, energy consumers).
 * `android12` (Android 12/13): items unindented, entity states indented by two. `indented`
 * (newer releases, IndentingPrintWriter): everything under a section header two spaces deeper.
 * The newer `PowerStatsLogger stats` part (a description of stored logs) is not written.
 */
export function formatDumpsysPowerstats(
  state: Omit<DumpsysPowerstats, 'meter'>,
  options: { readonly layout?: 'android12' | 'indented' } = {},
): string {
  const pad = options.layout === 'android12' ? '' : '  '
  const out: string[] = [`${SECTION}PowerEntities`]
  for (const e of state.entities) {
    out.push(`${pad}PowerEntityId: ${e.id}, PowerEntityName: ${e.name}`)
    for (const s of e.states) out.push(`${pad}  StateId: ${s.id}, StateName: ${s.name}`)
  }
  out.push(`${SECTION}Channels`)
  for (const c of state.channels) {
    out.push(`${pad}ChannelId: ${c.id}, ChannelName: ${c.name}, ChannelSubsystem: ${c.subsystem}`)
  }
  out.push(`${SECTION}EnergyConsumers`)
  for (const c of state.consumers) {
    out.push(
      `${pad}EnergyConsumerId: ${c.id}, Ordinal: ${c.ordinal}, Type: ${c.type}, Name: ${c.name}`,
    )
  }
  return `${out.join('\n')}\n`
}

/**
 * A meter reading as the HAL would print it from a cumulative counter in µWs (float32 cast, then
 * /1000, 2 decimals).
 */
export function meterReadingFromUws(
  rail: string,
  subsystem: string,
  energyUws: number,
  previousUws?: number,
): PowerStatsMeterReading {
  const mws = (uws: number): number => Number((Math.fround(uws) / 1000).toFixed(2))
  return {
    channel: `[${rail}]:${subsystem}`,
    rail,
    subsystem,
    energyMws: mws(energyUws),
    ...(previousUws === undefined ? {} : { deltaMws: mws(energyUws - previousUws) }),
  }
}

/**
 * Writes the HAL's energy-meter table (`dumpsys android.hardware.power.stats.IPowerStats/default`,
 * or with `delta` when `meter.elapsedMs` is set), preceded by an empty line like the HAL.
 */
export function formatPowerStatsMeter(meter: PowerStatsMeter): string {
  const delta = meter.elapsedMs !== undefined
  const out = ['', METER_BEGIN]
  if (delta) {
    out.push(`Elapsed time: ${meter.elapsedMs} ms`)
    out.push(
      `  ${'Channel'.padStart(32)}   ${'Cumulative Energy'.padStart(18)} (${'Delta   '.padStart(14)})`,
    )
  } else {
    out.push(`  ${'Channel'.padStart(32)}   ${'Cumulative Energy'.padStart(18)}`)
  }
  for (const r of meter.readings) {
    const base = `  ${r.channel.padStart(32)}   ${r.energyMws.toFixed(2).padStart(14)} mWs`
    out.push(delta ? `${base} (${(r.deltaMws ?? 0).toFixed(2).padStart(14)})` : base)
  }
  out.push(METER_END)
  return `${out.join('\n')}\n`
}

/** Cumulative energy of a reading in J (mWs = mJ). */
export function meterReadingEnergyJ(reading: PowerStatsMeterReading): number {
  return reading.energyMws / 1000
}
