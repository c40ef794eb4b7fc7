/**
 * What a parsed power profile covers (its CPU model, displays, radios, GPS, battery), and whether
 * it is AOSP's placeholder: the `frameworks/base/core/res/res/xml/power_profile.xml` every
 * framework-res.apk is built with, whose values its own comment calls "deliberately incorrect
 * dummy values" that "OEM's must measure and provide actual values before shipping a device"
 * (0.1 mA for the screen, the radios, GPS and the one CPU step of one 400 MHz core). A phone whose
 * OEM put the real profile in an overlay ships that placeholder in framework-res.apk too.
 *
 * Reference: AOSP core/res/res/xml/power_profile.xml (a copy from JetBrains/adt-tools-base's
 * layoutlib is in the shared corpus, `adttoolsbase_layoutlib_aosp_default_power_profile.xml`).
 */
import type { PowerProfile } from './index.js'

/** The profile's CPU model, as a framework of the phone's release would read it. */
export type PowerProfileCpuCoverage =
  | {
      /** Per-cluster tables (`cpu.core_speeds` / `cpu.core_power.clusterN` and older keys). */
      readonly kind: 'clusters'
      readonly clusters: ReadonlyArray<{
        readonly cores: number
        /** Frequency steps with a current. */
        readonly steps: number
        readonly minKhz?: number
        readonly maxKhz?: number
      }>
    }
  | {
      /**
       * Android 14+ per-policy steps (`cpu.scaling_step_power.policyN`): currents without their
       * frequencies, which the phone's cpufreq tables give.
       */
      readonly kind: 'policies'
      readonly policies: ReadonlyArray<{ readonly policy: number; readonly steps: number }>
    }
  | { readonly kind: 'none' }

export interface PowerProfileCoverage {
  readonly cpu: PowerProfileCpuCoverage
  /** Displays with a screen current (`screen.on`/`screen.full`, per display on Android 14+). */
  readonly displays: number
  /** Radios the profile prices: `wifi`, `cellular`, `bluetooth`. */
  readonly radios: ReadonlyArray<'wifi' | 'cellular' | 'bluetooth'>
  /** `gps.on` or `gps.signalqualitybased`. */
  readonly gps: boolean
  readonly batteryCapacityMah?: number
}

const POLICY_STEP_KEY = /^cpu\.scaling_step_power\.policy\d+$/

/** True when the profile gives its CPU model as Android 14+ scaling-policy steps. */
export function hasPolicySteps(profile: PowerProfile): boolean {
  return [...Object.keys(profile.items), ...Object.keys(profile.arrays)].some((k) =>
    POLICY_STEP_KEY.test(k),
  )
}

/** What the profile covers (see {@link PowerProfileCoverage}). */
export function powerProfileCoverage(profile: PowerProfile): PowerProfileCoverage {
  const keys = [...Object.keys(profile.items), ...Object.keys(profile.arrays)]
  const has = (pattern: RegExp): boolean => keys.some((k) => pattern.test(k))
  let cpu: PowerProfileCpuCoverage
  if (hasPolicySteps(profile)) {
    cpu = {
      kind: 'policies',
      policies: profile.cpu.scalingPolicies.map((p) => ({
        policy: p.policy,
        steps: p.stepPowerMa.length,
      })),
    }
  } else if (profile.cpu.clusters.some((c) => c.corePowerMa.length > 0)) {
    cpu = {
      kind: 'clusters',
      clusters: profile.cpu.clusters.map((c) => ({
        cores: c.cores,
        steps: c.corePowerMa.length,
        ...(c.speedsKhz.length === 0
          ? {}
          : { minKhz: Math.min(...c.speedsKhz), maxKhz: Math.max(...c.speedsKhz) }),
      })),
    }
  } else cpu = { kind: 'none' }
  const radios: Array<'wifi' | 'cellular' | 'bluetooth'> = []
  if (has(/^wifi\.(on|active|controller\.(idle|rx|tx))$/)) radios.push('wifi')
  if (has(/^(radio\.(active|on)|modem\.controller\.(idle|rx|tx))$/)) radios.push('cellular')
  if (has(/^bluetooth\.(on|active|controller\.(idle|rx|tx))$/)) radios.push('bluetooth')
  return {
    cpu,
    displays: profile.displays.filter(
      (d) => d.screenOnMa !== undefined || d.screenFullMa !== undefined,
    ).length,
    radios,
    gps: has(/^gps\.(on|signalqualitybased)$/),
    ...(profile.batteryCapacityMah === undefined
      ? {}
      : { batteryCapacityMah: profile.batteryCapacityMah }),
  }
}

/** The coverage in words: `3 CPU clusters (4+2+2 cores, 300–2802 MHz), 1 display, …`. */
export function describeCoverage(coverage: PowerProfileCoverage): string {
  const parts: string[] = []
  const { cpu } = coverage
  const mhz = (khz: number): string => `${Math.round(khz / 1000)}`
  if (cpu.kind === 'clusters') {
    const known = cpu.clusters.filter((c) => c.minKhz !== undefined && c.maxKhz !== undefined)
    const lo = Math.min(...known.map((c) => c.minKhz as number))
    const hi = Math.max(...known.map((c) => c.maxKhz as number))
    const n = cpu.clusters.length
    parts.push(
      `${n} CPU cluster${n === 1 ? '' : 's'} (${cpu.clusters.map((c) => c.cores).join('+')} cores${known.length === 0 ? '' : `, ${mhz(lo)}–${mhz(hi)} MHz`})`,
    )
  } else if (cpu.kind === 'policies') {
    const n = cpu.policies.length
    parts.push(
      `${n} CPU scaling polic${n === 1 ? 'y' : 'ies'} (Android 14+: ${cpu.policies.map((p) => `policy${p.policy} ${p.steps} steps`).join(', ')}; frequencies from the phone's cpufreq)`,
    )
  } else parts.push('no CPU model')
  parts.push(
    coverage.displays === 0
      ? 'no screen'
      : `${coverage.displays} display${coverage.displays === 1 ? '' : 's'}`,
  )
  parts.push(coverage.radios.length === 0 ? 'no radios' : coverage.radios.join(', '))
  parts.push(coverage.gps ? 'GPS' : 'no GPS')
  if (coverage.batteryCapacityMah !== undefined) {
    parts.push(`battery ${coverage.batteryCapacityMah} mAh`)
  }
  return parts.join(', ')
}

/**
 * AOSP's placeholder values: 0.1 mA for these keys (AOSP core/res/res/xml/power_profile.xml). No
 * real screen, radio or GPS draws 0.1 mA.
 */
const PLACEHOLDER_KEYS = [
  'screen.on',
  'screen.full',
  'wifi.on',
  'wifi.active',
  'wifi.scan',
  'bluetooth.on',
  'bluetooth.active',
  'gps.on',
  'radio.active',
  'radio.scanning',
  'dsp.audio',
  'dsp.video',
  'camera.avg',
  'cpu.idle',
  'cpu.active',
] as const

/**
 * True for AOSP's placeholder profile (or one that keeps its values): at least three of the
 * placeholder keys are present and every one present holds 0.1 mA, and every per-frequency CPU
 * current is 0.1 mA or less. A phone whose real profile is in an overlay that cannot be read still
 * shows this one in framework-res.apk; using it would price a screen at 0.1 mA.
 */
export function isAospPlaceholder(profile: PowerProfile): boolean {
  const present = PLACEHOLDER_KEYS.map((k) => profile.items[k]).filter(
    (v): v is number => v !== undefined,
  )
  if (present.length < 3 || !present.every((v) => v === 0.1)) return false
  const steps = [
    ...profile.cpu.clusters.flatMap((c) => c.corePowerMa),
    ...profile.cpu.scalingPolicies.flatMap((p) => p.stepPowerMa),
  ]
  return steps.every((ma) => ma <= 0.1)
}
