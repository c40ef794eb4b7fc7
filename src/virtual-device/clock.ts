/**
 * Device clocks for the virtual device: `realTimeClock()` follows the host's monotonic clock (the
 * default, so Appium and the demo behave naturally), `fastClock()` only moves when something
 * sleeps or calls `advance(ns)` (benchmarks: a two-minute test finishes at once).
 */
import type { DeviceClock, DeviceClockName } from './contract.js'

/** Options shared by both clocks. */
export interface DeviceClockOptions {
  /**
   * Device uptime (CLOCK_BOOTTIME) when the clock is created, ns. A freshly plugged phone has
   * usually been up for hours. @default 3 h 25 min 45.67 s
   */
  readonly bootOffsetNs?: number
  /**
   * Time the device spent suspended before the clock was created, ns: CLOCK_MONOTONIC lags
   * CLOCK_BOOTTIME by this much. @default 41 min 7.3 s
   */
  readonly suspendedNs?: number
  /** Wall-clock time (CLOCK_REALTIME) when the clock is created, ns since the Unix epoch. @default host time */
  readonly realtimeStartNs?: number
}

/** A clock whose time advances only through `sleep` and `advance`. */
export interface FastClock extends DeviceClock {
  /** Moves every device clock forward by `durationNs` (≥ 0) at once. */
  advance(durationNs: number): void
}

const DEFAULT_BOOT_OFFSET_NS = 12_345_670_000_000
const DEFAULT_SUSPENDED_NS = 2_467_300_000_000

function abortError(signal: AbortSignal): unknown {
  const reason: unknown = signal.reason
  return reason instanceof Error
    ? reason
    : new DOMException('The operation was aborted', 'AbortError')
}

function checkDuration(durationNs: number): number {
  return Number.isFinite(durationNs) && durationNs > 0 ? durationNs : 0
}

/** Follows the host's monotonic clock; `sleep` is a real timer. */
export function realTimeClock(options: DeviceClockOptions = {}): DeviceClock {
  const hostStartNs = process.hrtime.bigint()
  const bootOffsetNs = options.bootOffsetNs ?? DEFAULT_BOOT_OFFSET_NS
  const suspendedNs = options.suspendedNs ?? DEFAULT_SUSPENDED_NS
  const realtimeStartNs = options.realtimeStartNs ?? Date.now() * 1e6
  const elapsedNs = (): number => Number(process.hrtime.bigint() - hostStartNs)
  return {
    nowNs(clock: DeviceClockName): number {
      const e = elapsedNs()
      switch (clock) {
        case 'boottime':
          return bootOffsetNs + e
        case 'monotonic':
          return bootOffsetNs - suspendedNs + e
        case 'realtime':
          return realtimeStartNs + e
      }
    },
    sleep(durationNs: number, signal?: AbortSignal): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted === true) {
          reject(abortError(signal))
          return
        }
        const onAbort = (): void => {
          clearTimeout(timer)
          if (signal !== undefined) reject(abortError(signal))
        }
        const timer = setTimeout(
          () => {
            signal?.removeEventListener('abort', onAbort)
            resolve()
          },
          checkDuration(durationNs) / 1e6,
        )
        signal?.addEventListener('abort', onAbort, { once: true })
      })
    },
  }
}

/**
 * Time advances only through `sleep` and `advance`. `sleep(d)` jumps every clock forward by `d`
 * and resolves on the next turn of the event loop (never synchronously, so a `while` loop that
 * sleeps still lets the server notice a disconnect).
 */
export function fastClock(options: DeviceClockOptions = {}): FastClock {
  let elapsedNs = 0
  const bootOffsetNs = options.bootOffsetNs ?? DEFAULT_BOOT_OFFSET_NS
  const suspendedNs = options.suspendedNs ?? DEFAULT_SUSPENDED_NS
  const realtimeStartNs = options.realtimeStartNs ?? Date.now() * 1e6
  const advance = (durationNs: number): void => {
    elapsedNs += checkDuration(durationNs)
  }
  return {
    advance,
    nowNs(clock: DeviceClockName): number {
      switch (clock) {
        case 'boottime':
          return bootOffsetNs + elapsedNs
        case 'monotonic':
          return bootOffsetNs - suspendedNs + elapsedNs
        case 'realtime':
          return realtimeStartNs + elapsedNs
      }
    },
    sleep(durationNs: number, signal?: AbortSignal): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        if (signal?.aborted === true) {
          reject(abortError(signal))
          return
        }
        advance(durationNs)
        setImmediate(() => {
          if (signal?.aborted === true) reject(abortError(signal))
          else resolve()
        })
      })
    },
  }
}
