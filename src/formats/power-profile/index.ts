/**
 * power_profile.xml: the per-device table of average currents the framework's power model uses.
 *
 * Reference: AOSP frameworks/base core/java/com/android/internal/os/PowerProfile.java
 * (readPowerValuesFromXml, initCpuClusters, initCpuScalingPolicies, initCpuPowerBrackets,
 * initDisplays; android-14.0.0_r1). Like the official parser we keep every `<item>` and `<array>`
 * by name (unknown keys are not fatal) and let the last definition of a repeated name win. Unlike
 * it we also read the pre-Android-8 CPU keys (`cpu.speeds`, `cpu.active`, `cpu.awake`,
 * `cpu.speeds.clusterN`, `cpu.active.clusterN`) into the same cluster shape, because PETrA-era
 * profiles still use them.
 *
 * Every number in a key name (cluster, policy, display) is bounded by the keys the file holds: no
 * loop runs further than the number of entries, whatever `cluster4294967295` says.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser'

import { EnergyError } from '../../model/errors.js'
import { escapeXml } from '../_xml.js'
import { PowerProfileErrors } from './errors.js'

export { PowerProfileErrors } from './errors.js'
export type { PowerProfileCoverage, PowerProfileCpuCoverage } from './coverage.js'
export {
  describeCoverage,
  hasPolicySteps,
  isAospPlaceholder,
  powerProfileCoverage,
} from './coverage.js'

const FORMAT = 'power_profile.xml'

/** One CPU cluster (a set of cores sharing a frequency domain). */
export interface CpuCluster {
  /** Number of cores in the cluster (`cpu.clusters.cores[i]`; 1 when the profile does not say). */
  readonly cores: number
  /** Selectable frequencies in kHz (`cpu.core_speeds.clusterN`, `cpu.speeds.clusterN` or `cpu.speeds`). */
  readonly speedsKhz: readonly number[]
  /**
   * Current per core at each speed in mA, parallel to `speedsKhz` (`cpu.core_power.clusterN`,
   * `cpu.active.clusterN` or the legacy `cpu.active` array).
   */
  readonly corePowerMa: readonly number[]
  /** per-cluster active cost, mA (0 when absent) (`cpu.cluster_power.clusterN`) */
  readonly clusterPowerMa: number
}

/**
 * Which CPU key family the file uses. `modern`: `cpu.core_speeds/core_power/cluster_power.clusterN`
 * (Android 8+). `per-cluster-legacy`: `cpu.speeds.clusterN`/`cpu.active.clusterN` (Android 7).
 * `legacy`: single-cluster `cpu.speeds`/`cpu.active` arrays. `mixed`: more than one family present
 * (e.g. Xiaomi Mi A2 Lite: `cpu.speeds` with `cpu.core_power.cluster0`). A file with no CPU keys
 * at all is reported as `modern` with no clusters.
 */
export type PowerProfileSchema =
  'modern' | 'legacy' | 'per-cluster-legacy' | 'scaling-policy' | 'mixed'

/**
 * One CPU frequency-scaling policy (Android 14+: a cpufreq policy, i.e. a set of CPUs that change
 * frequency together; `policyN` is numbered after its first CPU, as in
 * `/sys/devices/system/cpu/cpufreq/policyN`).
 */
export interface CpuScalingPolicy {
  /** The policy's number: its first CPU. */
  readonly policy: number
  /** Extra current while any CPU of the policy runs, mA (`cpu.scaling_policy_power.policyN`; 0 when absent). */
  readonly policyPowerMa: number
  /**
   * Current per running CPU at each frequency step, lowest first, mA
   * (`cpu.scaling_step_power.policyN`). The frequencies are not in the profile: the framework
   * takes them from the kernel (`scaling_available_frequencies`).
   */
  readonly stepPowerMa: readonly number[]
  /** `cpu.power_brackets.policyN`, one bracket per step, when the profile gives them. */
  readonly powerBrackets?: readonly number[]
}

/** Power of one display (`…displayN` keys, or the single-display `screen.on` / `screen.full` / `ambient.on`). */
export interface DisplayPower {
  /** `screen.on.displayN` (or `screen.on`): screen on at minimum brightness, mA. */
  readonly screenOnMa?: number
  /** `screen.full.displayN` (or `screen.full`): extra at full brightness, mA. */
  readonly screenFullMa?: number
  /** `ambient.on.displayN` (or `ambient.on`): doze / always-on display, mA. */
  readonly ambientMa?: number
}

export interface PowerProfile {
  readonly schema: PowerProfileSchema
  /** Every `<item name>` → value (mA, except `battery.capacity` in mAh and `*.voltage` in mV). */
  readonly items: Readonly<Record<string, number>>
  /** Every `<array name>` → values, in document order. */
  readonly arrays: Readonly<Record<string, readonly number[]>>
  /** `battery.capacity` in mAh; absent when the file has none (e.g. Pixel 8 Pro). */
  readonly batteryCapacityMah?: number
  /**
   * Displays as the framework counts them (PowerProfile.initDisplays): `screen.on.displayN`,
   * `screen.full.displayN` and `ambient.on.displayN` for N = 0, 1, … until none of the three
   * exists; when there is no `display0` key at all, the single-display `screen.on`, `screen.full`
   * and `ambient.on` make display 0. Empty when the profile has no screen keys.
   */
  readonly displays: readonly DisplayPower[]
  readonly cpu: {
    readonly clusters: readonly CpuCluster[]
    /**
     * Current with the CPU suspended, mA: `cpu.suspend`; for legacy files (no `cpu.suspend` but a
     * `cpu.awake`) the old meaning of `cpu.idle` ("CPU in power collapse"). 0 when absent.
     */
    readonly suspendMa: number
    /**
     * Current with the CPU awake but idle, mA: `cpu.idle`; for legacy files `cpu.awake`. 0 when absent.
     */
    readonly idleMa: number
    /** Extra current whenever any core runs, mA: the `cpu.active` item (0 when it is an array or absent). */
    readonly activeMa: number
    /**
     * The Android 14+ CPU model, sorted by policy: from the `cpu.scaling_policy_power.policyN` /
     * `cpu.scaling_step_power.policyN` keys when the profile has any, else derived from `clusters`
     * as the framework does (policy = the cluster's first CPU, policy power = cluster power, step
     * power = per-core power). Empty when neither exists.
     */
    readonly scalingPolicies: readonly CpuScalingPolicy[]
  }
  /**
   * What the profile lacks for an energy model, in words: no screen power, no CPU power, display
   * keys past a gap (ignored, as the framework ignores them). Empty for a complete profile.
   */
  readonly warnings: readonly string[]
}

/** CPU numbers (total cores, policy numbers) stay below this: the Perfetto decoder's CPU bound too; no phone comes near it. */
const MAX_CPUS = 1024

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  isArray: (name) => name === 'item' || name === 'array' || name === 'value',
})

interface RawNode {
  readonly '@_name'?: unknown
  readonly '#text'?: unknown
  readonly value?: unknown
}

/** Parses power_profile.xml text. Throws `EnergyError` (codes in `PowerProfileErrors`). */
export function parsePowerProfile(xml: string): PowerProfile {
  const valid = XMLValidator.validate(xml)
  if (valid !== true) {
    throw new EnergyError({
      code: PowerProfileErrors.NOT_XML,
      message: `not well-formed XML: ${valid.err.msg}`,
      hint: 'Pass the decoded text of power_profile.xml (decode framework-res.apk with apktool or aapt2 first; binary XML is not supported).',
      details: { format: FORMAT, line: valid.err.line, column: valid.err.col },
    })
  }
  let doc: Record<string, unknown>
  try {
    // the validator and the parser disagree on some inputs (e.g. `<?"xml …`): the parser throws
    doc = parser.parse(xml) as Record<string, unknown>
  } catch (cause) {
    throw new EnergyError({
      code: PowerProfileErrors.NOT_XML,
      message: `not well-formed XML: ${cause instanceof Error ? cause.message : String(cause)}`,
      hint: 'Pass the decoded text of power_profile.xml (decode framework-res.apk with apktool or aapt2 first).',
      details: { format: FORMAT },
      cause,
    })
  }
  const device = doc.device
  if (device === undefined || Array.isArray(device)) {
    const root = Object.keys(doc).find((k) => !k.startsWith('?')) ?? '(none)'
    throw new EnergyError({
      code: PowerProfileErrors.NOT_POWER_PROFILE,
      message: `root element is <${root}>, expected exactly one <device name="Android">`,
      hint: 'Check that the file is a power_profile.xml (res/xml/power_profile.xml of framework-res).',
      details: { format: FORMAT, root },
    })
  }
  const node = (typeof device === 'object' && device !== null ? device : {}) as Record<
    string,
    unknown
  >
  const items: Record<string, number> = {}
  const arrays: Record<string, number[]> = {}
  for (const raw of asNodes(node.item)) {
    const name = nodeName(raw, 'item')
    items[name] = toNumber(textOf(raw), `<item name="${name}">`, name, xml)
  }
  for (const raw of asNodes(node.array)) {
    const name = nodeName(raw, 'array')
    arrays[name] = asValues(raw.value).map((v, i) =>
      toNumber(v, `<array name="${name}"> value #${i + 1}`, name, xml),
    )
  }
  if (Object.keys(items).length === 0 && Object.keys(arrays).length === 0) {
    throw new EnergyError({
      code: PowerProfileErrors.NOT_POWER_PROFILE,
      message: '<device> holds no <item> or <array> entries',
      hint: 'Check that the file is a power_profile.xml (res/xml/power_profile.xml of framework-res).',
      details: { format: FORMAT, root: 'device' },
    })
  }
  return powerProfileFromEntries(items, arrays)
}

/**
 * Builds a `PowerProfile` from name → value tables (what the XML holds), deriving `schema`,
 * `batteryCapacityMah`, `displays`, `cpu` and `warnings`. Throws `E_POWER_PROFILE_LENGTH_MISMATCH`
 * / `_BAD_VALUE` / `_BAD_INDEX` like the parser.
 */
export function powerProfileFromEntries(
  items: Readonly<Record<string, number>>,
  arrays: Readonly<Record<string, readonly number[]>>,
): PowerProfile {
  const families = new Set<'modern' | 'per-cluster-legacy' | 'legacy' | 'scaling-policy'>()
  const clusterIndexes = new Set<number>()
  let maxCluster: { index: number; key: string } | undefined
  const policyKeys = new Map<number, string>()
  const displayKeys: Array<{ index: number; key: string }> = []
  for (const key of [...Object.keys(items), ...Object.keys(arrays)]) {
    const c = CLUSTER_KEY.exec(key)
    if (c !== null) {
      const kind = c[1] ?? ''
      families.add(kind === 'speeds' || kind === 'active' ? 'per-cluster-legacy' : 'modern')
      const index = Number(c[2])
      clusterIndexes.add(index)
      if (maxCluster === undefined || index > maxCluster.index) maxCluster = { index, key }
      continue
    }
    const p = POLICY_KEY.exec(key)
    if (p !== null) {
      const policy = Number(p[2])
      if (!(policy < MAX_CPUS)) {
        throw new EnergyError({
          code: PowerProfileErrors.BAD_INDEX,
          message: `${key} names CPU policy ${p[2] ?? ''}, but CPU numbers stop at ${MAX_CPUS - 1}`,
          hint: 'A policy is numbered after its first CPU (policy0, policy4, …, as in /sys/devices/system/cpu/cpufreq/); fix the key name.',
          details: { format: FORMAT, key },
        })
      }
      if (p[1] !== 'power_brackets') {
        families.add('scaling-policy')
        policyKeys.set(policy, key)
      }
      continue
    }
    const d = DISPLAY_KEY.exec(key)
    if (d !== null) displayKeys.push({ index: Number(d[2]), key })
  }
  if (arrays['cpu.speeds'] !== undefined) families.add('legacy')
  const schema: PowerProfileSchema = families.size > 1 ? 'mixed' : ([...families][0] ?? 'modern')
  const warnings: string[] = []

  const clusters = buildClusters(items, arrays, clusterIndexes, maxCluster)
  const scalingPolicies = withPowerBrackets(
    arrays,
    policyKeys.size > 0 ? policiesFromKeys(items, arrays, policyKeys) : policiesOf(clusters),
  )
  const displays = buildDisplays(items, arrays, displayKeys, warnings)

  if (!displays.some((d) => d.screenOnMa !== undefined || d.screenFullMa !== undefined)) {
    warnings.push(
      'no screen power: the profile has neither screen.on / screen.full nor screen.on.display0 / screen.full.display0, so the screen draws nothing in its model',
    )
  }
  const cpuSteps =
    clusters.some((c) => c.corePowerMa.length > 0) ||
    scalingPolicies.some((p) => p.stepPowerMa.length > 0)
  if (!cpuSteps) {
    warnings.push(
      'no CPU power model: the profile has no per-frequency CPU current (cpu.core_power.clusterN, cpu.active.clusterN, the cpu.active array or cpu.scaling_step_power.policyN), so CPU work draws nothing in its model beyond cpu.active',
    )
  }

  const legacyIdle = items['cpu.suspend'] === undefined && items['cpu.awake'] !== undefined
  const capacity = items['battery.capacity']
  return {
    schema,
    items,
    arrays,
    ...(capacity === undefined ? {} : { batteryCapacityMah: capacity }),
    displays,
    cpu: {
      clusters,
      suspendMa: (legacyIdle ? items['cpu.idle'] : items['cpu.suspend']) ?? 0,
      idleMa: (legacyIdle ? items['cpu.awake'] : items['cpu.idle']) ?? 0,
      activeMa: items['cpu.active'] ?? 0,
      scalingPolicies,
    },
    warnings,
  }
}

const CLUSTER_KEY = /^cpu\.(core_speeds|core_power|cluster_power|speeds|active)\.cluster(\d+)$/
const POLICY_KEY = /^cpu\.(scaling_policy_power|scaling_step_power|power_brackets)\.policy(\d+)$/
const DISPLAY_KEY = /^(screen\.on|screen\.full|ambient\.on)\.display(\d+)$/

function buildClusters(
  items: Readonly<Record<string, number>>,
  arrays: Readonly<Record<string, readonly number[]>>,
  indexes: ReadonlySet<number>,
  maxCluster: { readonly index: number; readonly key: string } | undefined,
): CpuCluster[] {
  const coresItem = items['cpu.clusters.cores']
  const coresList: readonly number[] | undefined =
    arrays['cpu.clusters.cores'] ?? (coresItem === undefined ? undefined : [coresItem])
  const legacySingle = arrays['cpu.speeds'] !== undefined
  const maxIndex = maxCluster?.index ?? -1
  let clusterCount: number
  if (coresList !== undefined) {
    if (maxIndex + 1 > coresList.length) {
      throw new EnergyError({
        code: PowerProfileErrors.LENGTH_MISMATCH,
        message: `cpu.clusters.cores lists ${coresList.length} cluster(s) but ${maxCluster?.key ?? ''} exists`,
        hint: 'Give cpu.clusters.cores one <value> per cluster (cores in each cluster).',
        details: { format: FORMAT, key: 'cpu.clusters.cores' },
      })
    }
    clusterCount = coresList.length
  } else {
    // Without cpu.clusters.cores the file defines as many clusters as it has distinct numbers,
    // and they must be 0, 1, …: never count up to a number only a key name states.
    clusterCount = Math.max(indexes.size, legacySingle ? 1 : 0)
    if (maxIndex >= clusterCount) {
      let missing = 0
      while (indexes.has(missing)) missing++
      throw new EnergyError({
        code: PowerProfileErrors.BAD_INDEX,
        message: `${maxCluster?.key ?? ''} has no cluster${missing} before it, and no cpu.clusters.cores says how many clusters there are`,
        hint: 'Number CPU clusters 0, 1, 2, … without gaps, or list the cores of each cluster in cpu.clusters.cores.',
        details: { format: FORMAT, key: maxCluster?.key ?? '' },
      })
    }
  }
  const clusters: CpuCluster[] = []
  let totalCores = 0
  for (let i = 0; i < clusterCount; i++) {
    const speedsKey = firstKey(arrays, [
      `cpu.core_speeds.cluster${i}`,
      `cpu.speeds.cluster${i}`,
      ...(i === 0 ? ['cpu.speeds'] : []),
    ])
    const powerKey = firstKey(arrays, [
      `cpu.core_power.cluster${i}`,
      `cpu.active.cluster${i}`,
      ...(i === 0 && legacySingle ? ['cpu.active'] : []),
    ])
    const speedsKhz = speedsKey === undefined ? [] : (arrays[speedsKey] ?? [])
    const corePowerMa = powerKey === undefined ? [] : (arrays[powerKey] ?? [])
    if (speedsKhz.length !== corePowerMa.length) {
      throw new EnergyError({
        code: PowerProfileErrors.LENGTH_MISMATCH,
        message: `cluster ${i}: ${speedsKey ?? `cpu.core_speeds.cluster${i}`} has ${speedsKhz.length} value(s) but ${powerKey ?? `cpu.core_power.cluster${i}`} has ${corePowerMa.length}`,
        hint: 'Give one power value (mA) per CPU speed (kHz), in the same order.',
        details: {
          format: FORMAT,
          cluster: i,
          speedsKey: speedsKey ?? `cpu.core_speeds.cluster${i}`,
          powerKey: powerKey ?? `cpu.core_power.cluster${i}`,
        },
      })
    }
    const cores = coresList?.[i] ?? 1
    if (!Number.isInteger(cores) || cores < 1) {
      throw new EnergyError({
        code: PowerProfileErrors.BAD_VALUE,
        message: `cpu.clusters.cores value #${i + 1} is ${cores}, expected a positive whole number of cores`,
        hint: 'Fix cpu.clusters.cores: one positive integer per cluster.',
        details: { format: FORMAT, key: 'cpu.clusters.cores' },
      })
    }
    totalCores += cores
    if (totalCores > MAX_CPUS) {
      throw new EnergyError({
        code: PowerProfileErrors.BAD_VALUE,
        message: `cpu.clusters.cores adds up to more than ${MAX_CPUS} cores (value #${i + 1} is ${cores})`,
        hint: 'Fix cpu.clusters.cores: the number of cores in each cluster.',
        details: { format: FORMAT, key: 'cpu.clusters.cores' },
      })
    }
    clusters.push({
      cores,
      speedsKhz,
      corePowerMa,
      clusterPowerMa: items[`cpu.cluster_power.cluster${i}`] ?? 0,
    })
  }
  return clusters
}

/** Policies named by the Android 14+ keys (only the numbers present: policies are sparse). */
function policiesFromKeys(
  items: Readonly<Record<string, number>>,
  arrays: Readonly<Record<string, readonly number[]>>,
  keys: ReadonlyMap<number, string>,
): CpuScalingPolicy[] {
  return [...keys.keys()]
    .sort((a, b) => a - b)
    .map((policy) => {
      const stepKey = `cpu.scaling_step_power.policy${policy}`
      const stepItem = items[stepKey]
      return {
        policy,
        policyPowerMa: valueOf(items, arrays, `cpu.scaling_policy_power.policy${policy}`) ?? 0,
        stepPowerMa: arrays[stepKey] ?? (stepItem === undefined ? [] : [stepItem]),
      }
    })
}

/** The framework's fallback: one policy per cluster, numbered after the cluster's first CPU. */
function policiesOf(clusters: readonly CpuCluster[]): CpuScalingPolicy[] {
  let firstCpu = 0
  return clusters.map((c) => {
    const policy = { policy: firstCpu, policyPowerMa: c.clusterPowerMa, stepPowerMa: c.corePowerMa }
    firstCpu += c.cores
    return policy
  })
}

/** `cpu.power_brackets.policyN`: for every policy or none, one per step (initCpuPowerBrackets). */
function withPowerBrackets(
  arrays: Readonly<Record<string, readonly number[]>>,
  policies: readonly CpuScalingPolicy[],
): CpuScalingPolicy[] {
  const given = policies.filter((p) => arrays[`cpu.power_brackets.policy${p.policy}`] !== undefined)
  if (given.length === 0) return [...policies]
  const without = policies.find((p) => arrays[`cpu.power_brackets.policy${p.policy}`] === undefined)
  if (without !== undefined) {
    throw new EnergyError({
      code: PowerProfileErrors.LENGTH_MISMATCH,
      message: `cpu.power_brackets.policy${given[0]?.policy ?? 0} is given but cpu.power_brackets.policy${without.policy} is not`,
      hint: 'Give cpu.power_brackets for every CPU scaling policy or for none (as the framework requires).',
      details: { format: FORMAT, key: `cpu.power_brackets.policy${without.policy}` },
    })
  }
  return policies.map((p) => {
    const key = `cpu.power_brackets.policy${p.policy}`
    const brackets = arrays[key] ?? []
    if (brackets.length !== p.stepPowerMa.length) {
      throw new EnergyError({
        code: PowerProfileErrors.LENGTH_MISMATCH,
        message: `${key} has ${brackets.length} value(s) but policy ${p.policy} has ${p.stepPowerMa.length} step(s)`,
        hint: 'Give one power bracket per frequency step of the policy.',
        details: { format: FORMAT, key },
      })
    }
    return { ...p, powerBrackets: brackets }
  })
}

/** Displays 0, 1, … until one has none of its keys (initDisplays); the legacy keys make display 0. */
function buildDisplays(
  items: Readonly<Record<string, number>>,
  arrays: Readonly<Record<string, readonly number[]>>,
  keys: ReadonlyArray<{ readonly index: number; readonly key: string }>,
  warnings: string[],
): DisplayPower[] {
  const indexes = new Set(keys.map((k) => k.index))
  const displays: DisplayPower[] = []
  // bounded by the keys: each step needs a key with that number
  for (let n = 0; indexes.has(n); n++) {
    displays.push(
      display(
        valueOf(items, arrays, `screen.on.display${n}`),
        valueOf(items, arrays, `screen.full.display${n}`),
        valueOf(items, arrays, `ambient.on.display${n}`),
      ),
    )
  }
  const ignored = keys.filter((k) => k.index >= displays.length).map((k) => k.key)
  if (ignored.length > 0) {
    warnings.push(
      `${ignored.join(', ')} ignored: displays are numbered 0, 1, … and the profile has no ${displays.length === 0 ? 'display0' : `display${displays.length}`} keys`,
    )
  }
  if (displays.length === 0) {
    const on = valueOf(items, arrays, 'screen.on')
    const full = valueOf(items, arrays, 'screen.full')
    const ambient = valueOf(items, arrays, 'ambient.on')
    if (on !== undefined || full !== undefined || ambient !== undefined) {
      displays.push(display(on, full, ambient))
    }
  }
  return displays
}

function display(
  screenOnMa: number | undefined,
  screenFullMa: number | undefined,
  ambientMa: number | undefined,
): DisplayPower {
  return {
    ...(screenOnMa === undefined ? {} : { screenOnMa }),
    ...(screenFullMa === undefined ? {} : { screenFullMa }),
    ...(ambientMa === undefined ? {} : { ambientMa }),
  }
}

/** An item's value, or an array's first value (PowerProfile.getAveragePowerOrDefault). */
function valueOf(
  items: Readonly<Record<string, number>>,
  arrays: Readonly<Record<string, readonly number[]>>,
  key: string,
): number | undefined {
  return items[key] ?? arrays[key]?.[0]
}

/**
 * Writes power_profile.xml text. Every entry of `items` and `arrays` is written (items first, in
 * insertion order). CPU clusters, scaling policies, displays and battery capacity that have no
 * entry in the tables are written too (clusters in the modern schema, policies as
 * `cpu.scaling_*.policyN`, one display as `screen.on`/`screen.full`/`ambient.on`, several as
 * `….displayN`), so a profile built by hand round-trips through `parsePowerProfile`.
 */
export function formatPowerProfile(profile: PowerProfile): string {
  const items: Record<string, number> = { ...profile.items }
  const arrays: Record<string, readonly number[]> = { ...profile.arrays }
  if (profile.batteryCapacityMah !== undefined && items['battery.capacity'] === undefined) {
    items['battery.capacity'] = profile.batteryCapacityMah
  }
  const hasCpuKeys = Object.keys(arrays).some((k) => /^cpu\.(core_)?speeds/.test(k))
  if (!hasCpuKeys && profile.cpu.clusters.length > 0) {
    arrays['cpu.clusters.cores'] = profile.cpu.clusters.map((c) => c.cores)
    profile.cpu.clusters.forEach((c, i) => {
      arrays[`cpu.core_speeds.cluster${i}`] = c.speedsKhz
      arrays[`cpu.core_power.cluster${i}`] = c.corePowerMa
      if (c.clusterPowerMa !== 0) items[`cpu.cluster_power.cluster${i}`] = c.clusterPowerMa
    })
    if (items['cpu.suspend'] === undefined) items['cpu.suspend'] = profile.cpu.suspendMa
    if (items['cpu.idle'] === undefined) items['cpu.idle'] = profile.cpu.idleMa
    if (items['cpu.active'] === undefined) items['cpu.active'] = profile.cpu.activeMa
  }
  const names = [...Object.keys(items), ...Object.keys(arrays)]
  const policies = profile.cpu.scalingPolicies
  const hasPolicyKeys = names.some((k) => POLICY_KEY.test(k))
  const derived = policiesOf(profile.cpu.clusters)
  const sameAsDerived =
    JSON.stringify(policies.map(({ powerBrackets: _, ...p }) => p)) === JSON.stringify(derived)
  if (!hasPolicyKeys && policies.length > 0 && !sameAsDerived) {
    for (const p of policies) {
      items[`cpu.scaling_policy_power.policy${p.policy}`] = p.policyPowerMa
      arrays[`cpu.scaling_step_power.policy${p.policy}`] = p.stepPowerMa
    }
  }
  for (const p of policies) {
    const key = `cpu.power_brackets.policy${p.policy}`
    if (p.powerBrackets !== undefined && arrays[key] === undefined) arrays[key] = p.powerBrackets
  }
  const screenKeys = ['screen.on', 'screen.full', 'ambient.on']
  const hasDisplayKeys = names.some((k) => DISPLAY_KEY.test(k) || screenKeys.includes(k))
  if (!hasDisplayKeys) {
    // one display: the keys every release reads; more: the …displayN keys of Android 14+
    const suffix = (n: number): string => (profile.displays.length === 1 ? '' : `.display${n}`)
    profile.displays.forEach((d, n) => {
      if (d.screenOnMa !== undefined) items[`screen.on${suffix(n)}`] = d.screenOnMa
      if (d.screenFullMa !== undefined) items[`screen.full${suffix(n)}`] = d.screenFullMa
      if (d.ambientMa !== undefined) items[`ambient.on${suffix(n)}`] = d.ambientMa
    })
  }
  const out = ['<?xml version="1.0" encoding="utf-8"?>', '<device name="Android">']
  for (const [name, value] of Object.entries(items)) {
    out.push(`    <item name="${escapeXml(name)}">${formatNumber(value)}</item>`)
  }
  for (const [name, values] of Object.entries(arrays)) {
    out.push(`    <array name="${escapeXml(name)}">`)
    for (const v of values) out.push(`        <value>${formatNumber(v)}</value>`)
    out.push('    </array>')
  }
  out.push('</device>', '')
  return out.join('\n')
}

/** The current (mA) the profile gives for `key`: the item's value, or an array's first value. */
export function profileCurrentMa(profile: PowerProfile, key: string): number | undefined {
  return profile.items[key] ?? profile.arrays[key]?.[0]
}

function firstKey(
  arrays: Readonly<Record<string, readonly number[]>>,
  keys: readonly string[],
): string | undefined {
  return keys.find((k) => arrays[k] !== undefined)
}

function asNodes(value: unknown): RawNode[] {
  if (!Array.isArray(value)) return []
  return value.map((v: unknown) =>
    typeof v === 'object' && v !== null ? (v as RawNode) : ({ '#text': v } as RawNode),
  )
}

function asValues(value: unknown): unknown[] {
  if (!Array.isArray(value)) return []
  return value.map((v: unknown) =>
    typeof v === 'object' && v !== null ? ((v as RawNode)['#text'] ?? '') : v,
  )
}

function textOf(node: RawNode): unknown {
  return node['#text'] ?? ''
}

function nodeName(node: RawNode, tag: string): string {
  const name = node['@_name']
  if (typeof name !== 'string' || name === '') {
    throw new EnergyError({
      code: PowerProfileErrors.MISSING_NAME,
      message: `an <${tag}> element has no name attribute`,
      hint: `Give every <${tag}> a name="…" attribute (e.g. <item name="screen.on">).`,
      details: { format: FORMAT },
    })
  }
  return name
}

function toNumber(raw: unknown, where: string, key: string, xml: string): number {
  const text = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? String(raw) : ''
  const value = DECIMAL.test(text) ? Number(text) : Number.NaN
  if (!Number.isFinite(value)) {
    const line = lineOfName(xml, key)
    throw new EnergyError({
      code: PowerProfileErrors.BAD_VALUE,
      message: `${where} holds ${JSON.stringify(text)}, expected a number`,
      hint: `Fix the value of "${key}": power_profile.xml values are plain decimal numbers (mA, mAh for battery.capacity).`,
      details: { format: FORMAT, key, ...(line === undefined ? {} : { line }) },
    })
  }
  return value
}

/** 1-based line of the last element named `key` (the parser keeps no positions; last one wins). */
function lineOfName(xml: string, key: string): number | undefined {
  const at = Math.max(xml.lastIndexOf(`name="${key}"`), xml.lastIndexOf(`name='${key}'`))
  if (at < 0) return undefined
  let line = 1
  for (let i = 0; i < at; i++) if (xml.charCodeAt(i) === 10) line++
  return line
}

/**
 * What Java's Float.parseFloat accepts in practice here: plain decimals, optional exponent. Written
 * so that no digit can be matched two ways (`\d+\.?\d*` would be: quadratic on a long digit run).
 */
const DECIMAL = /^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?$/

function formatNumber(value: number): string {
  return Object.is(value, -0) ? '-0' : String(value)
}
