/**
 * power_profile.xml: the per-device table of average currents the framework's power model uses.
 *
 * Reference: AOSP frameworks/base core/java/com/android/internal/os/PowerProfile.java
 * (readPowerValuesFromXml, initCpuClusters; android-14.0.0_r1). Like the official parser we keep
 * every `<item>` and `<array>` by name (unknown keys are not fatal) and let the last definition of
 * a repeated name win. Unlike it we also read the pre-Android-8 CPU keys (`cpu.speeds`,
 * `cpu.active`, `cpu.awake`, `cpu.speeds.clusterN`, `cpu.active.clusterN`) into the same cluster
 * shape, because PETrA-era profiles still use them.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser'

import { EnergyError } from '../../model/errors.js'
import { PowerProfileErrors } from './errors.js'

export { PowerProfileErrors } from './errors.js'

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
export type PowerProfileSchema = 'modern' | 'legacy' | 'per-cluster-legacy' | 'mixed'

export interface PowerProfile {
  readonly schema: PowerProfileSchema
  /** Every `<item name>` → value (mA, except `battery.capacity` in mAh and `*.voltage` in mV). */
  readonly items: Readonly<Record<string, number>>
  /** Every `<array name>` → values, in document order. */
  readonly arrays: Readonly<Record<string, readonly number[]>>
  /** `battery.capacity` in mAh; absent when the file has none (e.g. Pixel 8 Pro). */
  readonly batteryCapacityMah?: number
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
  }
}

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
 * `batteryCapacityMah` and `cpu`. Throws `E_POWER_PROFILE_LENGTH_MISMATCH` / `_BAD_VALUE` like the parser.
 */
export function powerProfileFromEntries(
  items: Readonly<Record<string, number>>,
  arrays: Readonly<Record<string, readonly number[]>>,
): PowerProfile {
  const families = new Set<'modern' | 'per-cluster-legacy' | 'legacy'>()
  let maxIndex = -1
  for (const key of [...Object.keys(items), ...Object.keys(arrays)]) {
    const m = /^cpu\.(core_speeds|core_power|cluster_power|speeds|active)\.cluster(\d+)$/.exec(key)
    if (m !== null) {
      const kind = m[1] ?? ''
      families.add(kind === 'speeds' || kind === 'active' ? 'per-cluster-legacy' : 'modern')
      maxIndex = Math.max(maxIndex, Number(m[2]))
    }
  }
  if (arrays['cpu.speeds'] !== undefined) families.add('legacy')
  const schema: PowerProfileSchema = families.size > 1 ? 'mixed' : ([...families][0] ?? 'modern')

  const coresItem = items['cpu.clusters.cores']
  const coresList: readonly number[] | undefined =
    arrays['cpu.clusters.cores'] ?? (coresItem === undefined ? undefined : [coresItem])
  const legacySingle = arrays['cpu.speeds'] !== undefined
  const clusterCount =
    coresList?.length ?? Math.max(maxIndex + 1, legacySingle || maxIndex >= 0 ? 1 : 0)
  if (coresList !== undefined && maxIndex + 1 > coresList.length) {
    throw new EnergyError({
      code: PowerProfileErrors.LENGTH_MISMATCH,
      message: `cpu.clusters.cores lists ${coresList.length} cluster(s) but keys for cluster${maxIndex} exist`,
      hint: 'Give cpu.clusters.cores one <value> per cluster (cores in each cluster).',
      details: { format: FORMAT, key: 'cpu.clusters.cores' },
    })
  }
  const clusters: CpuCluster[] = []
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
    clusters.push({
      cores,
      speedsKhz,
      corePowerMa,
      clusterPowerMa: items[`cpu.cluster_power.cluster${i}`] ?? 0,
    })
  }

  const legacyIdle = items['cpu.suspend'] === undefined && items['cpu.awake'] !== undefined
  const capacity = items['battery.capacity']
  return {
    schema,
    items,
    arrays,
    ...(capacity === undefined ? {} : { batteryCapacityMah: capacity }),
    cpu: {
      clusters,
      suspendMa: (legacyIdle ? items['cpu.idle'] : items['cpu.suspend']) ?? 0,
      idleMa: (legacyIdle ? items['cpu.awake'] : items['cpu.idle']) ?? 0,
      activeMa: items['cpu.active'] ?? 0,
    },
  }
}

/**
 * Writes power_profile.xml text. Every entry of `items` and `arrays` is written (items first, in
 * insertion order). CPU clusters and battery capacity that have no entry in the tables are written
 * in the modern schema, so a profile built by hand round-trips through `parsePowerProfile`.
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

/** What Java's Float.parseFloat accepts in practice here: plain decimals, optional exponent. */
const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/

function formatNumber(value: number): string {
  return Object.is(value, -0) ? '-0' : String(value)
}

function escapeXml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
}
