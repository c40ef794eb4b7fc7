/** What a user probably meant by a name that matches nothing: for "did you mean" in messages. */

/**
 * The known name `name` was probably meant to be: the same but for case, one a prefix of the
 * other (4 letters or more), or within one edit per three letters (an edit: a letter added,
 * dropped, changed, or two neighbours swapped). `undefined` when none is that close.
 */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const wanted = name.toLowerCase()
  let best: string | undefined
  let bestDistance = Math.max(1, Math.floor(name.length / 3)) + 1
  for (const candidate of known) {
    const c = candidate.toLowerCase()
    const prefix =
      Math.min(c.length, wanted.length) >= 4 && (c.startsWith(wanted) || wanted.startsWith(c))
    const distance = c === wanted ? 0 : prefix ? 1 : editDistance(wanted, c)
    if (distance < bestDistance) {
      best = candidate
      bestDistance = distance
    }
  }
  return best
}

/** Optimal string alignment distance (Levenshtein plus the swap of two neighbouring letters). */
function editDistance(a: string, b: string): number {
  let twoBack: number[] = []
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let d = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + cost,
      )
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, (twoBack[j - 2] ?? 0) + 1)
      current.push(d)
    }
    twoBack = previous
    previous = current
  }
  return previous[b.length] ?? 0
}
