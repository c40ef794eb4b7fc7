/**
 * Host ↔ device clock mapping from paired readings: host time before, a device clock reading,
 * host time after. The device read the clock somewhere in between, so
 * `offset = device − midpoint(host)` is exact within ± (round trip / 2 + device resolution / 2).
 * With N readings we intersect their bounds (see estimateOffset).
 *
 * Which device reading gives which clock (and why):
 * - boottime: `cat /proc/uptime`, first field, seconds with 2 decimals → 10 ms steps, truncated
 *   (fs/proc/uptime.c prints tv_nsec / (NSEC_PER_SEC / 100)). Readable by the shell user; the
 *   kernel computes it from CLOCK_BOOTTIME (counts suspend).
 * - realtime: `date +%s%N` (toybox date, ns digits, held in a double to 256 ns; wall clock, can
 *   jump with NTP). Falls back to
 *   `date +%s` (1 s steps) on toolbox-era devices that print a literal `%N`.
 * - monotonic: `/proc/timer_list` ("now at <ns> nsecs", CLOCK_MONOTONIC, 1 ns) is mode 0400 root
 *   on Android: works after `adb root` (userdebug/eng builds, emulators). Without root, map host →
 *   boottime here and boottime → monotonic from a Perfetto ClockSnapshot (it records both clocks
 *   at one instant); monotonic and boottime differ by all suspend time since boot, so one cannot
 *   stand in for the other.
 */
import { EnergyError, type ClockMapping } from '../model/index.js'
import type { AdbDevice } from './client.js'
import { DeviceErrors } from './errors.js'
import { shellScript } from './shell.js'

/** Device clocks we can read. */
export type DeviceClock = 'boottime' | 'realtime' | 'monotonic'

/** One paired reading, all in ns. */
export interface ClockReading {
  /** Host `process.hrtime.bigint()` just before the request. */
  readonly hostBeforeNs: number
  /** The device clock's value as printed (truncated to its resolution). */
  readonly deviceNs: number
  /** Host time just after the reply. */
  readonly hostAfterNs: number
  /** Step of the device reading (10 ms for /proc/uptime). */
  readonly resolutionNs: number
}

/** A host → device mapping with how it was obtained. */
export interface DeviceClockMapping extends ClockMapping {
  readonly from: 'host'
  readonly to: DeviceClock
  /** Command that read the device clock. */
  readonly command: string
  /** Paired readings taken; the best one gave the mapping. */
  readonly readings: readonly ClockReading[]
  /** Round trip of the narrowest reading, ns. */
  readonly roundTripNs: number
  /**
   * `intersection`: the bounds of all readings agreed and were intersected; `best-reading`: they
   * disagreed (clock stepped, or a device that rounds), so only the narrowest reading was used.
   */
  readonly method: 'intersection' | 'best-reading'
}

/** Host clock (CLOCK_MONOTONIC on Linux/macOS, shared by every process on the host), ns. */
export function hostNowNs(): number {
  return Number(process.hrtime.bigint())
}

/**
 * How long ago (host ns) a mapping's last paired reading was taken, at `hostNs`: the two clocks
 * drift apart from then on. 0 for a mapping without readings.
 */
export function mappingAgeNs(mapping: DeviceClockMapping, hostNs: number = hostNowNs()): number {
  let takenNs = -Infinity
  for (const r of mapping.readings) takenNs = Math.max(takenNs, r.hostAfterNs)
  return takenNs === -Infinity ? 0 : Math.max(0, hostNs - takenNs)
}

interface ClockSource {
  readonly command: string
  parse(stdout: string): { deviceNs: number; resolutionNs: number } | undefined
}

/** `/proc/uptime`: "12345.67 54321.00" → first field as ns, resolution from the decimals. */
export function parseProcUptime(
  text: string,
): { deviceNs: number; resolutionNs: number } | undefined {
  const match = /^\s*(\d+)(?:\.(\d{1,9}))?\s/.exec(text)
  if (match === null) return undefined
  const fraction = match[2] ?? ''
  const resolutionNs = 10 ** (9 - fraction.length)
  return {
    deviceNs: Number(match[1]) * 1e9 + (fraction === '' ? 0 : Number(fraction) * resolutionNs),
    resolutionNs,
  }
}

/** `date +%s%N` (19 digits) or `date +%s` (10 digits). */
export function parseEpochDate(
  text: string,
): { deviceNs: number; resolutionNs: number } | undefined {
  const trimmed = text.trim()
  if (/^\d{16,20}$/.test(trimmed)) {
    // Epoch ns (~1.8e18) exceed 2^53: a double holds them to 256 ns. Count that rounding (both
    // directions) as the reading's resolution so the uncertainty stays honest.
    const deviceNs = Number(trimmed)
    if (deviceNs <= Number.MAX_SAFE_INTEGER) return { deviceNs, resolutionNs: 1 }
    const ulp = 2 ** (Math.floor(Math.log2(deviceNs)) - 52)
    return { deviceNs: deviceNs - ulp, resolutionNs: 2 * ulp }
  }
  if (/^\d{1,12}$/.test(trimmed)) return { deviceNs: Number(trimmed) * 1e9, resolutionNs: 1e9 }
  return undefined
}

/** `/proc/timer_list`: the first `now at <ns> nsecs` line. */
export function parseTimerListNow(
  text: string,
): { deviceNs: number; resolutionNs: number } | undefined {
  const match = /^now at (\d+) nsecs$/m.exec(text)
  return match === null ? undefined : { deviceNs: Number(match[1]), resolutionNs: 1 }
}

const SOURCES: Record<DeviceClock, ClockSource> = {
  boottime: { command: 'cat /proc/uptime', parse: parseProcUptime },
  realtime: { command: 'date +%s%N', parse: parseEpochDate },
  // `cat`, not `grep`: toybox grep is absent on some builds; the `now at` line is the file's third.
  monotonic: { command: 'cat /proc/timer_list', parse: parseTimerListNow },
}

/**
 * The estimate (pure). Each reading bounds the offset to `[device − after, device + resolution −
 * before]`. The offset is one constant, so it lies in the intersection of all the bounds: readings
 * taken at different phases of a coarse clock's tick (10 ms for /proc/uptime) narrow it well below
 * the tick. If the bounds do not intersect (the clock was stepped, or the device rounds instead of
 * truncating), we fall back to the narrowest single reading and say so in `method`.
 */
export function estimateOffset(
  readings: readonly ClockReading[],
  to: DeviceClock,
): Pick<
  DeviceClockMapping,
  'from' | 'to' | 'offsetNs' | 'uncertaintyNs' | 'roundTripNs' | 'method'
> {
  let best: ClockReading | undefined
  let low = -Infinity
  let high = Infinity
  const width = (r: ClockReading): number => r.hostAfterNs - r.hostBeforeNs + r.resolutionNs
  for (const r of readings) {
    if (r.hostAfterNs < r.hostBeforeNs) continue
    if (best === undefined || width(r) < width(best)) best = r
    low = Math.max(low, r.deviceNs - r.hostAfterNs)
    high = Math.min(high, r.deviceNs + r.resolutionNs - r.hostBeforeNs)
  }
  if (best === undefined) {
    throw new EnergyError({
      code: DeviceErrors.CLOCK_UNREADABLE,
      message: `no usable paired reading of the device ${to} clock`,
      hint: 'Take at least one reading; the host clock must not run backwards.',
    })
  }
  const roundTripNs = best.hostAfterNs - best.hostBeforeNs
  if (low <= high) {
    return {
      from: 'host',
      to,
      offsetNs: (low + high) / 2,
      uncertaintyNs: (high - low) / 2,
      roundTripNs,
      method: 'intersection',
    }
  }
  const bestLow = best.deviceNs - best.hostAfterNs
  const bestHigh = best.deviceNs + best.resolutionNs - best.hostBeforeNs
  return {
    from: 'host',
    to,
    offsetNs: (bestLow + bestHigh) / 2,
    uncertaintyNs: (bestHigh - bestLow) / 2,
    roundTripNs,
    method: 'best-reading',
  }
}

/** Options of {@link mapDeviceClock}. */
export interface ClockMappingOptions {
  /** Paired readings to take (more readings narrow a coarse clock's bound). @default 10 */
  readonly samples?: number
  /** Host clock, ns. @default process.hrtime.bigint() */
  readonly hostNow?: () => number
}

/** Reads one paired sample of a device clock. */
export async function readDeviceClock(
  device: AdbDevice,
  clock: DeviceClock,
  hostNow: () => number = hostNowNs,
): Promise<ClockReading> {
  const source = SOURCES[clock]
  const hostBeforeNs = hostNow()
  const result = await shellScript(device, source.command)
  const hostAfterNs = hostNow()
  let parsed = result.exitCode === 0 ? source.parse(result.stdout) : undefined
  if (parsed === undefined && clock === 'realtime') {
    // toolbox date: no %N; seconds only.
    const before = hostNow()
    const fallback = await shellScript(device, 'date +%s')
    const after = hostNow()
    parsed = fallback.exitCode === 0 ? parseEpochDate(fallback.stdout) : undefined
    if (parsed !== undefined) return { hostBeforeNs: before, hostAfterNs: after, ...parsed }
  }
  if (parsed === undefined) {
    throw new EnergyError({
      code: DeviceErrors.CLOCK_UNREADABLE,
      message: `cannot read the device ${clock} clock: \`${source.command}\` exited ${result.exitCode} with ${JSON.stringify(result.stdout.slice(0, 80))}`,
      hint:
        clock === 'monotonic'
          ? '/proc/timer_list needs root: run `adb root` (userdebug/eng builds), or map host → boottime and boottime → monotonic with a Perfetto clock snapshot.'
          : 'Run the command with `adb shell` to see what the device prints.',
      details: { serial: device.serial, clock },
    })
  }
  return { hostBeforeNs, hostAfterNs, ...parsed }
}

/** Estimates `device clock = host clock + offsetNs` (± uncertaintyNs) from best-of-N pairs. */
export async function mapDeviceClock(
  device: AdbDevice,
  clock: DeviceClock,
  options: ClockMappingOptions = {},
): Promise<DeviceClockMapping> {
  const samples = Math.max(1, Math.floor(options.samples ?? 10))
  const hostNow = options.hostNow ?? hostNowNs
  const readings: ClockReading[] = []
  for (let i = 0; i < samples; i++) readings.push(await readDeviceClock(device, clock, hostNow))
  return { ...estimateOffset(readings, clock), command: SOURCES[clock].command, readings }
}
