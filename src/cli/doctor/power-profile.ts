/**
 * The doctor's power-profile finding: which power_profile.xml the phone's framework uses, where it
 * was found (the overlay the phone names, or framework-res.apk, or a plain-text file), what it
 * covers, and whether it fits the phone's CPU clusters — found the way a run finds it
 * (`findPowerProfile`; a run also caches it per build, doctor reads it afresh).
 */
import {
  findPowerProfile,
  POWER_PROFILE_FIX,
  type AdbDevice,
  type Capabilities,
} from '../../device/index.js'
import { describeCoverage } from '../../formats/power-profile/index.js'
import { isEnergyError } from '../../model/index.js'
import { coreCurrentsFor } from '../../session/core-currents.js'
import { warnedBy } from './_util.js'
import type { DoctorCheck } from './report.js'

const USE =
  "Give it to a run as energy({ powerProfile: './power_profile.xml' }) (a path on this computer)."

export async function checkPowerProfile(
  device: AdbDevice,
  caps: Capabilities,
): Promise<DoctorCheck<'power-profile'>> {
  const base = { id: 'power-profile' as const, title: 'power profile' }
  const rails = caps.odpm.available
  const why = rails
    ? 'With ODPM rails it only weighs how each CPU cluster rail is split between threads (the (f / 1 GHz)² proxy otherwise).'
    : "This phone has no power rails: a method's energy is its own CPU work priced by the CPU model with this profile, calibrated against the fuel gauge with busy loops when a run's first test takes the phone (about a minute; calibration: 'keep' keeps it for later runs). Without a profile there is no per-method energy."
  let found
  try {
    found = await findPowerProfile(device)
  } catch (error) {
    if (!isEnergyError(error)) throw error
    return { ...base, ...warnedBy(error) }
  }
  const { profile, coverage } = found
  if (profile === undefined || coverage === undefined) {
    const problem = found.problem
    return {
      ...base,
      status: 'warn',
      found: withoutFix(problem?.message ?? 'no power profile was found'),
      note: why,
      evidence: found.evidence,
      fix: `${capitalize(POWER_PROFILE_FIX)}. ${USE}`,
      ...(problem === undefined ? {} : { code: problem.code }),
    }
  }
  const overlay =
    found.source?.kind === 'apk' && found.source.overlayPackage !== undefined
      ? ` (overlay ${found.source.overlayPackage})`
      : ''
  const text = `${found.where ?? '?'}${overlay}: ${describeCoverage(coverage)}`
  const fit = coreCurrentsFor(profile, caps.cpuClusters, caps.cpuFrequenciesKhz)
  const skipped = found.warnings.map((w) => w.message).join(' ')
  if (fit.warning !== undefined) {
    return {
      ...base,
      status: 'warn',
      found: `${text}; ${fit.warning.message.replace(/^the power profile's /, 'its ')}`,
      note: why,
      evidence: found.evidence,
      fix: `Check that the profile is this phone's; ${POWER_PROFILE_FIX}. ${USE}`,
      code: fit.warning.code,
    }
  }
  const fits =
    fit.currents === undefined
      ? ''
      : ` Its CPU tables fit the phone's ${fit.currents.length} cpufreq cluster${fit.currents.length === 1 ? '' : 's'}.`
  if (skipped !== '') {
    return {
      ...base,
      status: 'warn',
      found: text,
      note: `${skipped}${fits} ${why}`,
      evidence: found.evidence,
      fix: 'Check the APKs named above with `aapt2 dump xmltree --file res/xml/power_profile.xml <apk>`.',
      code: found.warnings[0]?.code ?? 'W_POWER_PROFILE_UNDECODABLE',
    }
  }
  return {
    ...base,
    status: 'pass',
    found: text,
    note: `${fits.trim()} ${why}`.trim(),
    evidence: found.evidence,
  }
}

/** A problem's reason: its message without the fix every problem ends with (given as `fix`). */
function withoutFix(message: string): string {
  const fix = `; ${POWER_PROFILE_FIX}`
  return message.endsWith(fix) ? message.slice(0, -fix.length) : message
}

function capitalize(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`
}
