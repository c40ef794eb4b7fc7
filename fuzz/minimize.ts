/**
 * Shrinks a failing input (and the split points its chunked decoding used) while it still fails
 * the same way: delta debugging over byte ranges, halving the range length when no range of a
 * length can go, then dropping the split points the failure does not need. A range cut before or
 * across a split point moves that point with the bytes after it, so a failure that depends on where
 * the input is split (a chunked decoder's mismatch) survives the cuts around it.
 */

/** Whether a candidate still fails as the original did. */
export type StillFails = (input: Uint8Array, points: readonly number[]) => Promise<boolean>

export interface MinimizeLimits {
  /** Candidates tried at most. @default 20000 */
  readonly attempts?: number
  /** Time spent at most, in ms. @default 60000 */
  readonly timeMs?: number
}

export interface Minimized {
  readonly input: Uint8Array
  readonly points: number[]
}

export async function minimize(
  input: Uint8Array,
  points: readonly number[],
  stillFails: StillFails,
  limits: MinimizeLimits = {},
): Promise<Minimized> {
  const maxAttempts = limits.attempts ?? 20_000
  const deadline = Date.now() + (limits.timeMs ?? 60_000)
  let attempts = 0
  const spent = (): boolean => attempts >= maxAttempts || Date.now() >= deadline
  let best = input
  let bestPoints = validPoints(points, best.length)

  for (let piece = Math.ceil(best.length / 2); piece >= 1 && !spent();) {
    let shrunk = false
    for (let at = 0; at < best.length && !spent();) {
      const cut = Math.min(piece, best.length - at)
      const candidate = new Uint8Array(best.length - cut)
      candidate.set(best.subarray(0, at), 0)
      candidate.set(best.subarray(at + cut), at)
      const candidatePoints = movePoints(bestPoints, at, cut, candidate.length)
      attempts++
      if (await stillFails(candidate, candidatePoints)) {
        best = candidate
        bestPoints = candidatePoints
        shrunk = true // the next range now starts at `at`
      } else {
        at += piece
      }
    }
    if (!shrunk) piece = Math.floor(piece / 2)
  }

  for (let i = bestPoints.length - 1; i >= 0 && !spent(); i--) {
    const fewer = bestPoints.filter((_, j) => j !== i)
    attempts++
    if (await stillFails(best, fewer)) bestPoints = fewer
  }
  return { input: best, points: bestPoints }
}

/** The split points after `cut` bytes at `at` are removed: later points move back with their bytes. */
function movePoints(points: readonly number[], at: number, cut: number, length: number): number[] {
  return validPoints(
    points.map((p) => (p <= at ? p : p >= at + cut ? p - cut : at)),
    length,
  )
}

/** Sorted, distinct points strictly inside the input (a point at 0 or the end splits nothing). */
function validPoints(points: readonly number[], length: number): number[] {
  return [...new Set(points.filter((p) => p > 0 && p < length))].sort((a, b) => a - b)
}
