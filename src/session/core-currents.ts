/**
 * The phone's per-core currents per frequency, from its power profile, for the interval and
 * sampling methods' split of the CPU cluster rails (`WindowPlan.cpuCoreCurrents`): a running ns
 * on a cluster weighs the profile's current at the cluster's frequency then, plus the cluster's
 * own current (`cpu.cluster_power.clusterN`) shared by its cores running then, instead of the
 * (f / 1 GHz)² proxy.
 */
import type { CoreCurrents, CpuPowerModel } from '../attribution/index.js'
import { readPowerProfile } from '../collectors/index.js'
import type { AdbDevice, Capabilities } from '../device/index.js'
import type { PowerProfile } from '../formats/power-profile/index.js'
import type { EnergyWarning } from '../model/index.js'
import type { ProvidedEnergyOptions } from './target.js'

export interface ProfileCurrents {
  /** Per cluster of the phone (little first), when the profile fits the phone's clusters. */
  readonly currents?: readonly CoreCurrents[]
  /** Why a profile that was found is not used. */
  readonly warning?: EnergyWarning
}

/**
 * The profile's clusters as the phone's: one `cpu.core_speeds`/`cpu.core_power` table per
 * cpufreq cluster, in the same order (both little first), with as many cores each when the
 * profile says (`cpu.clusters.cores`). Anything else — another phone's profile, an Android 14+
 * profile with only per-policy steps (their frequencies are not in the file) — is not used: a
 * table for the wrong cluster would weigh running time worse than the proxy.
 */
export function coreCurrentsFor(
  profile: PowerProfile,
  cpuClusters: ReadonlyArray<readonly number[]>,
): ProfileCurrents {
  const clusters = profile.cpu.clusters
  const mismatch = (why: string): ProfileCurrents => ({
    warning: {
      code: 'W_PROFILE_MISMATCH',
      severity: 'warning',
      message: `the power profile's CPU clusters do not fit this phone's (${why}); cluster rails are split by the (f / 1 GHz)² proxy instead of its currents`,
    },
  })
  // A profile without CPU tables (display-only, Android 14+ policy steps) has nothing to offer.
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

/**
 * The currents for this phone, when its power would be ODPM with a CPU schedule (the only path
 * that splits cluster rails by frequency): from the `powerProfile` option (a host path; one that
 * cannot be read is `E_COLLECTOR_PROFILE_UNAVAILABLE`), else the phone's plain-text
 * power_profile.xml when it has one (most keep it inside framework-res.apk: then none).
 */
export async function profileCurrents(
  options: ProvidedEnergyOptions,
  device: AdbDevice,
  capabilities: Capabilities,
): Promise<ProfileCurrents> {
  const odpm =
    (options.power === 'auto' || options.power === 'odpm') &&
    capabilities.odpm.available &&
    capabilities.perfetto.available
  if (!odpm || options.execution === 'none') return {}
  const profile = await readPowerProfile(options.powerProfile ?? undefined, device)
  return profile === undefined ? {} : coreCurrentsFor(profile, capabilities.cpuClusters)
}

/** The CPU power model of a phone without rails, and where its profile came from. */
export interface PhoneCpuModel {
  readonly model: CpuPowerModel
  /** Where the power profile was found, in words (`powerProfile option (./pp.xml)`, a phone path). */
  readonly profile: string
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
): Promise<{ readonly cpuModel?: PhoneCpuModel; readonly warning?: EnergyWarning }> {
  const rails = capabilities.odpm.available
  const gauge = options.power === 'fuel-gauge' || (options.power === 'auto' && !rails)
  if (!gauge || options.execution === 'none' || !capabilities.fuelGauge.available) return {}
  const option = options.powerProfile ?? undefined
  const profile = await readPowerProfile(option, device)
  if (profile === undefined) {
    return {
      warning: {
        code: 'W_NO_POWER_PROFILE',
        severity: 'warning',
        message:
          "no power profile was found on the phone, so its methods' CPU energy cannot be modelled (this phone has no power rails); give the phone's power_profile.xml with the powerProfile option",
      },
    }
  }
  const fitted = coreCurrentsFor(profile, capabilities.cpuClusters)
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
      profile:
        option === undefined ? 'power_profile.xml on the phone' : `powerProfile option (${option})`,
    },
  }
}
