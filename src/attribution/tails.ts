/**
 * Asynchronous energy (eprof) and tail energy (vLens Eq. 2): device energy a method causes after it
 * ran (radio tail, GPS left on) is charged to the invocation that caused it, even when it lands
 * after the test's window closed. Tail energy comes from a tail model (energy above idle and how
 * long the component stays up), as in vLens §3.2.1; its power is assumed flat over the tail.
 */
import { NS_PER_S } from '../model/units.js'
import { AttributionErrors, attributionError } from './errors.js'

/** One invocation of an API that leaves a component in a high-power state afterwards. */
export interface TailInvocation {
  /** Method that made the call (charged with the tail). */
  readonly method: string
  /** Component whose tail follows, e.g. `wifi`, `cellular`, `gps`. Tails only interact per component. */
  readonly component: string
  /** Invocation start and end (`T_S`, `T_E`), ns on the attribution clock. */
  readonly startNs: number
  readonly endNs: number
  /** Tail model: energy the component draws above idle after the invocation, J (`E_tail`). */
  readonly tailEnergyJ: number
  /** Tail model: how long the component stays up after the invocation, ns (`T_tail`). */
  readonly tailDurationNs: number
  /**
   * Drawn on top of what the component was already left drawing (a rise on a rail an earlier
   * window left on): charged beside that tail, which it does not cut, nor does it cut this.
   */
  readonly onTop?: boolean
}

/**
 * Who pays for tail energy.
 * - `split-among-overlapping` (default, vLens Eq. 2): when the next invocation on the same
 *   component starts before the tail ends, the earlier one is charged
 *   `(T_S(next) − T_E(this)) / T_tail × E_tail` and the rest of its tail is cut; the last one of a
 *   burst is charged its whole `E_tail`.
 * - `charge-to-initiator` (eprof): the same tail energy, but a whole burst's tails are charged to
 *   the invocation that woke the component (the first of the burst).
 * - `leave-unattributed`: tails are modelled and removed from what methods are charged, but nobody
 *   is charged; the energy stays in `unattributedEnergyJ`.
 */
export type TailPolicy = 'split-among-overlapping' | 'charge-to-initiator' | 'leave-unattributed'

/** Tail energy drawn over `[startNs, endNs]` at flat power, charged to `method` (or nobody). */
export interface TailCharge {
  /** Charged method, or `undefined` under `leave-unattributed`. */
  readonly method: string | undefined
  readonly component: string
  /** When this tail segment is drawn (from `T_E` of the invocation to the cut or tail end), ns. */
  readonly startNs: number
  readonly endNs: number
  /** Energy of the segment, J. */
  readonly energyJ: number
}

function checkInvocation(inv: TailInvocation, index: number): void {
  const finite = [inv.startNs, inv.endNs, inv.tailEnergyJ, inv.tailDurationNs].every(
    Number.isFinite,
  )
  if (!finite || inv.endNs < inv.startNs || inv.tailEnergyJ < 0 || !(inv.tailDurationNs > 0)) {
    throw attributionError(
      AttributionErrors.INVALID_OPTION,
      `tail invocation ${index} (${inv.method}, ${inv.component}) is invalid: start ${inv.startNs}, end ${inv.endNs} ns, E_tail ${inv.tailEnergyJ} J, T_tail ${inv.tailDurationNs} ns`,
      'Each invocation needs start ≤ end, a tail energy ≥ 0 J and a tail duration > 0 ns from the tail model.',
      { index },
    )
  }
}

/** Splits invocations into tail charges under a policy (vLens Eq. 2 for the cut). */
export function chargeTails(
  invocations: readonly TailInvocation[],
  policy: TailPolicy = 'split-among-overlapping',
): TailCharge[] {
  if (
    policy !== 'split-among-overlapping' &&
    policy !== 'charge-to-initiator' &&
    policy !== 'leave-unattributed'
  ) {
    throw attributionError(
      AttributionErrors.INVALID_OPTION,
      `unknown tail policy "${String(policy)}"`,
      'Use "split-among-overlapping", "charge-to-initiator" or "leave-unattributed".',
    )
  }
  invocations.forEach(checkInvocation)
  // Tails cut each other per component; one drawn on top of another is a layer of its own.
  const byComponent = new Map<string, TailInvocation[]>()
  for (const inv of invocations) {
    const key = `${inv.component}${inv.onTop === true ? '\u0000on top' : ''}`
    const list = byComponent.get(key) ?? []
    list.push(inv)
    byComponent.set(key, list)
  }
  const charges: TailCharge[] = []
  for (const list of byComponent.values()) {
    const component = (list[0] as TailInvocation).component
    list.sort((a, b) => a.startNs - b.startNs || a.endNs - b.endNs)
    let initiator: string | undefined
    for (let i = 0; i < list.length; i++) {
      const a = list[i] as TailInvocation
      const next = list[i + 1]
      const tailEnd = a.endNs + a.tailDurationNs
      // Eq. 2: the next invocation restarts the component before this tail has run out.
      const cut =
        next !== undefined && next.startNs < tailEnd ? Math.max(next.startNs, a.endNs) : tailEnd
      const fraction = (cut - a.endNs) / a.tailDurationNs
      const previous = list[i - 1]
      const wokeComponent =
        previous === undefined || previous.endNs + previous.tailDurationNs <= a.startNs
      if (wokeComponent) initiator = a.method
      const method =
        policy === 'leave-unattributed'
          ? undefined
          : policy === 'charge-to-initiator'
            ? (initiator ?? a.method)
            : a.method
      charges.push({
        method,
        component,
        startNs: a.endNs,
        endNs: cut,
        energyJ: fraction * a.tailEnergyJ,
      })
    }
  }
  return charges
}

/** Tail energy drawn up to `tNs` (flat power over each charge), J. */
export function tailCumulativeJ(charges: readonly TailCharge[], tNs: number): number {
  let sum = 0
  for (const c of charges) {
    if (tNs <= c.startNs) continue
    const span = c.endNs - c.startNs
    if (span <= 0) continue
    sum += (c.energyJ * (Math.min(tNs, c.endNs) - c.startNs)) / span
  }
  return sum
}

/** Tail power in effect at `tNs`, W. */
export function tailPowerW(charges: readonly TailCharge[], tNs: number): number {
  let sum = 0
  for (const c of charges) {
    const span = c.endNs - c.startNs
    if (span > 0 && tNs >= c.startNs && tNs < c.endNs) sum += (c.energyJ * NS_PER_S) / span
  }
  return sum
}

/** Energy-weighted samples (eprof §III-D): how many samples of `sampleEnergyJ` a request is worth. */
export interface WeightedSamples {
  /** Samples recorded for each request, in input order (`m = ⌊(E + carry) / E_sample⌋`). */
  readonly counts: readonly number[]
  /** Energy carried over to the next request after the last one, J. */
  readonly carryJ: number
}

/**
 * eprof's carry: each request's energy (plus the carry from the previous one) is recorded as
 * `m = ⌊E / E_sample⌋` samples and the remainder is carried to the next request, so no energy is
 * left unreported. E.g. 0.87 J at 0.1 J/sample → 8 samples, 0.07 J carried.
 */
export function energyWeightedSamples(
  requestEnergiesJ: readonly number[],
  sampleEnergyJ: number,
): WeightedSamples {
  if (!(sampleEnergyJ > 0) || !Number.isFinite(sampleEnergyJ)) {
    throw attributionError(
      AttributionErrors.INVALID_OPTION,
      `energy per sample must be a positive number of joules, got ${sampleEnergyJ}`,
      'Pick a sample energy such as 0.1 J (eprof uses 100 mJ).',
    )
  }
  let carry = 0
  const counts: number[] = []
  requestEnergiesJ.forEach((e, index) => {
    if (!Number.isFinite(e) || e < 0) {
      throw attributionError(
        AttributionErrors.INVALID_OPTION,
        `request ${index} has an invalid energy (${e} J)`,
        'Request energies must be finite and ≥ 0 J.',
        { index },
      )
    }
    const total = e + carry
    // Tolerate binary rounding (0.87 / 0.1 = 8.7 but 0.3 / 0.1 = 2.9999999999999996).
    const m = Math.floor(total / sampleEnergyJ + 1e-9)
    counts.push(m)
    carry = Math.max(0, total - m * sampleEnergyJ)
  })
  return { counts, carryJ: carry }
}
