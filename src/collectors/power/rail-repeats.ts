/**
 * Repeated ODPM readings. The Pixel ODPM driver re-reads its PMIC at most every 50 ms and
 * otherwise hands back its cached reading, old stamp included, so a poll that comes soon after a
 * late one (or soon after a session's first read) repeats the previous reading.
 */
import type { RailSeries } from '../../model/index.js'

/**
 * The rails without repeated readings (a reading at the same time as the one before it): the
 * repeat carries no news, and two readings at one time would make an interval of 0 ns.
 */
export function withoutRepeats<R extends RailSeries>(rails: readonly R[]): R[] {
  return rails.map((rail) => {
    const readings = rail.readings.filter((r, i) => i === 0 || r.tNs !== rail.readings[i - 1]?.tNs)
    return readings.length === rail.readings.length ? rail : { ...rail, readings }
  })
}
