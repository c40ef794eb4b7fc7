/**
 * This phone's silicon, as it departs from the power profile it ships. An OEM's power_profile.xml
 * holds nominal figures for a model; each phone's CPUs draw more or less than that (process
 * variation, binning, the voltage tables of its bin), so an estimator that merely replays the
 * profile must not look perfect on the virtual phone either. With `silicon: 'deviated'` (the
 * default of the phone physics) the simulation runs on "true" currents drawn from the nominal ones
 * with a seeded factor per cluster, per frequency step and for `cpu.active`; the phone still ships
 * (and `power_profile.xml` still reads) the nominal profile. Documented in docs/virtual-device.md
 * ("Silicon").
 *
 * The spreads are model assumptions of the order reported between units of one model and between
 * measured and OEM profiles, not measurements of a Pixel 6.
 */
import type { PowerModel, SimCluster } from './power-model.js'
import { gaussian, prng } from './simulation.js'

/** `nominal`: the simulation draws the profile's currents; `deviated`: this phone's own. */
export type Silicon = 'nominal' | 'deviated'

export const SILICON: readonly Silicon[] = ['nominal', 'deviated']

/** How far the true currents depart from the profile's: model assumptions. */
export const SILICON_SPREAD = {
  /** Per cluster (and for `cpu.active`): a factor 1 ± U(min, max), the sign seeded too. */
  cluster: { min: 0.1, max: 0.3 },
  /** Per frequency step on top of its cluster's factor: N(1, sd), clipped to 1 ± clip. */
  step: { sd: 0.02, clip: 0.05 },
} as const

/** One cluster's true currents beside the nominal ones. */
export interface ClusterSilicon {
  readonly cluster: number
  readonly cores: number
  readonly firstCore: number
  readonly speedsKhz: readonly number[]
  /** The cluster's factor d_k (1 with nominal silicon). */
  readonly factor: number
  /** Per frequency step, the step's own factor on top of `factor` (1 with nominal silicon). */
  readonly stepFactors: readonly number[]
  /** What the profile says, mA: per-core current per frequency step, and the cluster's cost. */
  readonly nominal: { readonly corePowerMa: readonly number[]; readonly clusterPowerMa: number }
  /** What the simulation draws, mA. */
  readonly true: { readonly corePowerMa: readonly number[]; readonly clusterPowerMa: number }
}

/** The phone's silicon: what `vdev silicon` prints, for tests and benchmarks (ground truth). */
export interface SiliconReport {
  readonly silicon: Silicon
  readonly clusters: readonly ClusterSilicon[]
  readonly cpuActive: {
    readonly factor: number
    readonly nominalMa: number
    readonly trueMa: number
  }
}

/** A factor 1 ± U(min, max) with a seeded sign. */
function clusterFactor(next: () => number): number {
  const { min, max } = SILICON_SPREAD.cluster
  const size = min + (max - min) * next()
  return next() < 0.5 ? 1 - size : 1 + size
}

function stepFactor(next: () => number): number {
  const { sd, clip } = SILICON_SPREAD.step
  return 1 + Math.max(-clip, Math.min(clip, sd * gaussian(next)))
}

/**
 * The simulation's power model on this phone's silicon: with `deviated`, each cluster's per-core
 * currents (every frequency step) and cluster cost times its factor d_k, each step's current also
 * times its own factor, `cpu.active` times its own; everything else as the profile says. The same
 * seed gives the same silicon.
 */
export function siliconOf(
  nominal: PowerModel,
  silicon: Silicon,
  seed: number,
): { readonly power: PowerModel; readonly report: SiliconReport } {
  // Its own stream: the silicon must not change when the jitter or sensor streams do.
  const next = prng(((seed * 2654435761) ^ 0x51c0_3a7e) >>> 0)
  const deviate = silicon === 'deviated'
  const clusters: ClusterSilicon[] = nominal.clusters.map((c) => {
    const factor = deviate ? clusterFactor(next) : 1
    const stepFactors = c.corePowerMa.map(() => (deviate ? stepFactor(next) : 1))
    return {
      cluster: c.index,
      cores: c.cores,
      firstCore: c.firstCore,
      speedsKhz: c.speedsKhz,
      factor,
      stepFactors,
      nominal: { corePowerMa: c.corePowerMa, clusterPowerMa: c.clusterPowerMa },
      true: {
        corePowerMa: c.corePowerMa.map((ma, i) => ma * factor * (stepFactors[i] ?? 1)),
        clusterPowerMa: c.clusterPowerMa * factor,
      },
    }
  })
  const activeFactor = deviate ? clusterFactor(next) : 1
  const report: SiliconReport = {
    silicon,
    clusters,
    cpuActive: {
      factor: activeFactor,
      nominalMa: nominal.cpuActiveMa,
      trueMa: nominal.cpuActiveMa * activeFactor,
    },
  }
  if (!deviate) return { power: nominal, report }
  const trueClusters = nominal.clusters.map((c, i): SimCluster => {
    const own = clusters[i]?.true ?? c
    const step = c.speedsKhz.indexOf(c.busyFreqKhz)
    return {
      ...c,
      corePowerMa: own.corePowerMa,
      clusterPowerMa: own.clusterPowerMa,
      busyCoreMa: own.corePowerMa[step] ?? c.busyCoreMa,
    }
  })
  return {
    power: { ...nominal, clusters: trueClusters, cpuActiveMa: report.cpuActive.trueMa },
    report,
  }
}
