/**
 * A small seeded PRNG so bootstrap intervals are reproducible: mulberry32 (Tommy Ettinger's
 * 32-bit generator), period 2³², plenty for resampling a few thousand times.
 */

/** Returns a function yielding uniform floats in [0, 1), fully determined by `seed`. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
