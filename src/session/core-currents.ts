/**
 * The phone's per-core currents per frequency, from its power profile, for the interval and
 * sampling methods' split of the CPU cluster rails (`WindowPlan.cpuCoreCurrents`): a running ns
 * on a cluster weighs the profile's current at the cluster's frequency then, plus the cluster's
 * own current (`cpu.cluster_power.clusterN`) shared by its cores running then, instead of the
 * (f / 1 GHz)² proxy; the CPU power model of a phone without rails; and the battery's capacity
 * (`battery.capacity`) for `% of battery` figures on any phone. The profile is the
 * `powerProfile` option's, else the one the phone's framework uses (`findPowerProfile`:
 * framework-res.apk or the overlay that replaces it), cached per build beside the artifacts.
 */
import { dirname, join } from 'node:path'
import type { CoreCurrents, CpuPowerModel } from '../attribution/index.js'
import { readPowerProfile } from '../collectors/index.js'
import {
  findPowerProfile,
  type AdbDevice,
  type Capabilities,
  type FoundPowerProfile,
} from '../device/index.js'
import { hasPolicySteps, type PowerProfile } from '../formats/power-profile/index.js'
import type { EnergyWarning } from '../model/index.js'
import type { ProvidedEnergyOptions } from './target.js'

export interface ProfileCurrents {
  /** Per cluster of the phone (little first), when the profile fits the phone's clusters. */
  readonly currents?: readonly CoreCurrents[]
  /** Where the profile came from, in words, when one was found. */
  readonly profile?: string
  /** Why a profile that was found is not used (or what was skipped on the way to it). */
  readonly warning?: EnergyWarning
}

function mismatch(why: string): ProfileCurrents {
  return {
    warning: {
      code: 'W_PROFILE_MISMATCH',
      severity: 'warning',
      message: `the power profile's CPU clusters do not fit this phone's (${why}); cluster rails are split by the (f / 1 GHz)² proxy instead of its currents`,
    },
  }
}

/**
 * The profile's clusters as the phone's: one `cpu.core_speeds`/`cpu.core_power` table per
 * cpufreq cluster, in the same order (both little first), with as many cores each when the
 * profile says (`cpu.clusters.cores`). An Android 14+ profile gives per-policy steps instead
 * (`cpu.scaling_step_power.policyN`, N the policy's first CPU) whose frequencies the file does
 * not hold: each step is paired with the phone's own cpufreq table (`cpuFrequenciesKhz`, in the
 * order the framework reads it) when the counts match. Anything else — another phone's profile —
 * is not used: a table for the wrong cluster would weigh running time worse than the proxy.
 */
export function coreCurrentsFor(
  profile: PowerProfile,
  cpuClusters: ReadonlyArray<readonly number[]>,
  cpuFrequenciesKhz: ReadonlyArray<readonly number[]> = [],
): ProfileCurrents {
  if (hasPolicySteps(profile)) return policyCurrents(profile, cpuClusters, cpuFrequenciesKhz)
  const clusters = profile.cpu.clusters
  // A profile without CPU tables (display-only) has nothing to offer.
  if (clusters.length === 0) return {}
  if (clusters.length !== cpuClusters.length) {
    return mismatch(
      `${clusters.length} cluster table(s) in the profile, ${cpuClusters.length} cpufreq cluster(s) on the phone`,
    )
  }
  const currents: CoreCurrents[] = []
  for (const [i, c] of clusters.entries()) {
    const cpus = cpuClusters[i] as readonly number[]
    // `cores` is 1 when the profile does not say (legacy files): nothing to check then.
    const saysCores =
      profile.arrays['cpu.clusters.cores'] !== undefined ||
      profile.items['cpu.clusters.cores'] !== undefined
    if (saysCores && c.cores !== cpus.length) {
      return mismatch(
        `cluster ${i}: ${c.cores} core(s) in the profile, ${cpus.length} on the phone`,
      )
    }
    const usable =
      c.speedsKhz.length > 0 &&
      c.speedsKhz.length === c.corePowerMa.length &&
      c.speedsKhz.every((k) => k > 0) &&
      c.corePowerMa.every((ma) => ma >= 0)
    if (!usable) return mismatch(`cluster ${i} has no usable speed/current table`)
    currents.push({
      speedsKhz: c.speedsKhz,
      currentsMa: c.corePowerMa,
      clusterMa: c.clusterPowerMa,
    })
  }
  return { currents }
}

/** Android 14+ steps on the phone's cpufreq policies: policy N is the cluster whose first CPU is N. */
function policyCurrents(
  profile: PowerProfile,
  cpuClusters: ReadonlyArray<readonly number[]>,
  cpuFrequenciesKhz: ReadonlyArray<readonly number[]>,
): ProfileCurrents {
  const policies = profile.cpu.scalingPolicies
  if (policies.length !== cpuClusters.length) {
    return mismatch(
      `${policies.length} CPU scaling polic${policies.length === 1 ? 'y' : 'ies'} in the profile, ${cpuClusters.length} cpufreq cluster(s) on the phone`,
    )
  }
  const currents: CoreCurrents[] = []
  for (const [i, cpus] of cpuClusters.entries()) {
    const first = cpus[0] ?? -1
    const policy = policies.find((p) => p.policy === first)
    if (policy === undefined) {
      return mismatch(
        `no cpu.scaling_step_power.policy${first} for the cluster of CPUs ${cpus.join(' ')}`,
      )
    }
    const freqs = cpuFrequenciesKhz[i] ?? []
    const steps = policy.stepPowerMa
    if (freqs.length !== steps.length) {
      return mismatch(
        `policy${first}: ${steps.length} step current(s) in the profile, ${freqs.length} frequencies in the phone's scaling_available_frequencies`,
      )
    }
    if (!freqs.every((k) => k > 0) || !steps.every((ma) => ma >= 0)) {
      return mismatch(`policy${first} has no usable frequency/current table`)
    }
    // The framework pairs steps with frequencies in the kernel's order; the table is ascending.
    const pairs = freqs
      .map((khz, j) => [khz, steps[j] as number] as const)
      .sort((a, b) => a[0] - b[0])
    currents.push({
      speedsKhz: pairs.map(([khz]) => khz),
      currentsMa: pairs.map(([, ma]) => ma),
      clusterMa: policy.policyPowerMa,
    })
  }
  return { currents }
}

/**
 * The power profile this run uses on this phone: the `powerProfile` option's (a host path or XML
 * text; a path that cannot be read is `E_COLLECTOR_PROFILE_UNAVAILABLE`), else the phone's own,
 * found where its framework reads it and cached per build fingerprint in `cacheDir` (by default
 * `<artifactsDir>/../profiles`, which the run's workers share).
 */
export async function phonePowerProfile(
  options: ProvidedEnergyOptions,
  device: AdbDevice,
  capabilities: Capabilities,
  cacheDir: string = join(dirname(options.artifactsDir), 'profiles'),
): Promise<FoundPowerProfile> {
  const option = options.powerProfile ?? undefined
  if (option !== undefined) {
    const profile = (await readPowerProfile(option, device)) as PowerProfile
    const path = option.trimStart().startsWith('<') ? 'inline XML' : option
    return findPowerProfile(device, { option: { profile, path } })
  }
  return findPowerProfile(device, { cacheDir, build: capabilities.build })
}

/**
 * `phonePowerProfile`, read at most once however often it is asked for: the device session reads
 * the profile for the currents, the CPU model and the battery's capacity alike.
 */
export function phonePowerProfileOnce(
  options: ProvidedEnergyOptions,
  device: AdbDevice,
  capabilities: Capabilities,
  cacheDir?: string,
): () => Promise<FoundPowerProfile> {
  let found: Promise<FoundPowerProfile> | undefined
  return () => (found ??= phonePowerProfile(options, device, capabilities, cacheDir))
}

/**
 * The battery's capacity in mAh, for `% of battery` figures: the `batteryCapacityMah` option,
 * else the `battery.capacity` the power profile declares (the `powerProfile` option's, or the
 * phone's own as its framework reads it, as `phonePowerProfile` finds it), whichever power
 * source measures. None when neither says (the Pixel 8 Pro's profile declares none).
 */
export async function batteryCapacityMah(
  options: ProvidedEnergyOptions,
  profile: () => Promise<FoundPowerProfile>,
): Promise<number | undefined> {
  if (options.batteryCapacityMah !== null) return options.batteryCapacityMah
  return (await profile()).profile?.batteryCapacityMah
}

/**
 * The currents for this phone, when its power would be ODPM with a CPU schedule (the only path
 * that splits cluster rails by frequency), from `phonePowerProfile`. None, silently, when no
 * profile is found: the rails are measured, only their split between threads uses the proxy.
 */
export async function profileCurrents(
  options: ProvidedEnergyOptions,
  device: AdbDevice,
  capabilities: Capabilities,
  cacheDir?: string,
  find: () => Promise<FoundPowerProfile> = phonePowerProfileOnce(
    options,
    device,
    capabilities,
    cacheDir,
  ),
): Promise<ProfileCurrents> {
  const odpm =
    (options.power === 'auto' || options.power === 'odpm') &&
    capabilities.odpm.available &&
    capabilities.perfetto.available
  if (!odpm || options.execution === 'none') return {}
  const found = await find()
  if (found.profile === undefined) return {}
  const fitted = coreCurrentsFor(
    found.profile,
    capabilities.cpuClusters,
    capabilities.cpuFrequenciesKhz,
  )
  const skipped = found.warnings[0]
  return {
    ...fitted,
    ...(found.where === undefined ? {} : { profile: found.where }),
    ...(fitted.warning === undefined && skipped !== undefined ? { warning: skipped } : {}),
  }
}

/** The CPU power model of a phone without rails, and where its profile came from. */
export interface PhoneCpuModel {
  readonly model: CpuPowerModel
  /**
   * Where the power profile was found, in words: `powerProfile option (./pp.xml)`,
   * `/product/overlay/X.apk (res/xml/power_profile.xml)`, a plain-text file's path.
   */
  readonly profile: string
  /** The profile itself: its screen, radio and GPS currents price the phone's other components. */
  readonly powerProfile: PowerProfile
}

/**
 * The CPU power model for a phone whose power is its fuel gauge, when its methods are recorded:
 * the profile's per-cluster currents on the phone's cpufreq clusters and its `cpu.active`. None,
 * with a warning that says what to do, when no profile is found or it does not fit the phone.
 */
export async function phoneCpuModel(
  options: ProvidedEnergyOptions,
  device: AdbDevice,
  capabilities: Capabilities,
  cacheDir?: string,
  find: () => Promise<FoundPowerProfile> = phonePowerProfileOnce(
    options,
    device,
    capabilities,
    cacheDir,
  ),
): Promise<{ readonly cpuModel?: PhoneCpuModel; readonly warning?: EnergyWarning }> {
  const rails = capabilities.odpm.available
  const gauge = options.power === 'fuel-gauge' || (options.power === 'auto' && !rails)
  if (!gauge || options.execution === 'none' || !capabilities.fuelGauge.available) return {}
  const found = await find()
  const profile = found.profile
  if (profile === undefined) {
    const problem = found.problem
    return {
      warning: {
        code: problem?.code ?? 'W_NO_POWER_PROFILE',
        severity: 'warning',
        message: `${problem?.message ?? 'no power profile was found on the phone'}. Until then its methods' CPU energy cannot be modelled (this phone has no power rails)${skippedNote(found)}`,
      },
    }
  }
  const fitted = coreCurrentsFor(profile, capabilities.cpuClusters, capabilities.cpuFrequenciesKhz)
  if (fitted.currents === undefined) {
    return fitted.warning === undefined
      ? {
          warning: {
            code: 'W_NO_POWER_PROFILE',
            severity: 'warning',
            message:
              "the phone's power profile has no CPU currents, so its methods' CPU energy cannot be modelled; give a complete power_profile.xml with the powerProfile option",
          },
        }
      : { warning: fitted.warning }
  }
  return {
    cpuModel: {
      model: {
        clusters: fitted.currents.map((currents, i) => ({
          cpus: capabilities.cpuClusters[i] ?? [],
          currents,
        })),
        activeMa: profile.cpu.activeMa,
      },
      profile: found.where ?? 'power_profile.xml on the phone',
      powerProfile: profile,
    },
    ...(found.warnings[0] === undefined ? {} : { warning: found.warnings[0] }),
  }
}

/** The candidates skipped on the way (W_POWER_PROFILE_UNDECODABLE), for a warning that has one slot. */
function skippedNote(found: FoundPowerProfile): string {
  return found.warnings.length === 0
    ? ''
    : `; on the way: ${found.warnings.map((w) => w.message).join('; ')}`
}
