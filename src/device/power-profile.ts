/**
 * The phone's own power profile, found where its framework reads it: PowerProfile reads
 * `R.xml.power_profile` through Resources (AOSP core/java/com/android/internal/os/PowerProfile.java,
 * readPowerValuesFromXml), i.e. `res/xml/power_profile.xml` of /system/framework/framework-res.apk
 * unless a runtime resource overlay (RRO) targeting `android` replaces it. The overlay that wins is
 * asked of the phone itself:
 *
 * 1. `cmd overlay lookup --verbose android android:xml/power_profile` (Android 12+): the
 *    framework's own resolution, its last step the APK the value comes from, then the value — the
 *    file's path inside that APK (`res/xml/power_profile.xml`, or a shortened one).
 * 2. else `cmd overlay dump` (OverlayManagerService's settings): the enabled overlays targeting
 *    `android`, highest priority first, then framework-res.apk.
 * 3. else the overlay folders the shell can list, in the framework's partition order
 *    (/vendor < /odm < /oem < /product < /system_ext; PackagePartitions), each APK's manifest
 *    (`<overlay android:targetPackage="android" android:isStatic android:priority>`) read.
 *
 * Each candidate APK is pulled (bounded in size), its entry decoded (src/device/apk.ts) and
 * parsed by src/formats/power-profile. An APK or entry that cannot be decoded is a warning and the
 * next candidate is tried. On a user build SELinux keeps the shell out of /vendor, /odm, /oem and
 * /system_ext overlays (sepolicy coredomain.te neverallow on vendor_overlay_file): when the phone
 * names such an overlay as the winner the profile is reported unreadable — framework-res.apk then
 * holds AOSP's placeholder, which is never used (`isAospPlaceholder`). Last, the plain-text files
 * some OEM ROMs read (`DEVICE_PROFILE_PATHS`). Documented in docs/formats/power-profile.md.
 *
 * What was found is cached on the host per build fingerprint (`cacheDir`), so a run pulls a
 * 20–50 MB framework-res.apk once per build, not once per worker.
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import {
  parseOverlayDump,
  parseOverlayLookup,
  winningStep,
  type OverlayLookup,
} from '../formats/dumpsys/index.js'
import {
  isAospPlaceholder,
  parsePowerProfile,
  powerProfileCoverage,
  type PowerProfile,
  type PowerProfileCoverage,
} from '../formats/power-profile/index.js'
import { isEnergyError, type EnergyError, type EnergyWarning } from '../model/index.js'
import { apkXmlToText, overlayOf, readApkXml } from './apk.js'
import type { AdbDevice } from './client.js'
import { DeviceErrors } from './errors.js'
import { evidence, run, type Evidence } from './probe.js'
import { pull } from './transfer.js'

/** Where some OEM ROMs ship a plain-text power_profile.xml (AOSP reads none of them). */
export const DEVICE_PROFILE_PATHS: readonly string[] = [
  '/vendor/etc/power_profile.xml',
  '/odm/etc/power_profile.xml',
  '/system/etc/power_profile.xml',
]

export const FRAMEWORK_RES = '/system/framework/framework-res.apk'

/** The profile's entry in framework-res.apk and in overlays, unless their resource table says otherwise. */
export const POWER_PROFILE_ENTRY = 'res/xml/power_profile.xml'

/** RRO folders, lowest precedence first (PackagePartitions.SYSTEM_PARTITIONS). */
export const OVERLAY_DIRS: readonly string[] = [
  '/vendor/overlay',
  '/odm/overlay',
  '/oem/overlay',
  '/product/overlay',
  '/system_ext/overlay',
]

/** framework-res.apk is tens of MB on recent releases; nothing this large is an APK we read. */
export const MAX_APK_BYTES = 128 * 1024 * 1024

/** Where a power profile came from. */
export type PowerProfileSource =
  | { readonly kind: 'option'; readonly path: string }
  | { readonly kind: 'file'; readonly path: string }
  | {
      readonly kind: 'apk'
      readonly apk: string
      /** The entry inside the APK (`res/xml/power_profile.xml`). */
      readonly entry: string
      /** The overlay's package, when the APK is a runtime resource overlay. */
      readonly overlayPackage?: string
    }

/** What `findPowerProfile` found. */
export interface FoundPowerProfile {
  /** The profile the framework uses, when it could be read and is not AOSP's placeholder. */
  readonly profile?: PowerProfile
  readonly source?: PowerProfileSource
  /** `source` in words (`/product/overlay/X.apk (res/xml/power_profile.xml)`). */
  readonly where?: string
  /** What `profile` covers. */
  readonly coverage?: PowerProfileCoverage
  /** Where AOSP's placeholder profile was found (and not used), when it was. */
  readonly placeholder?: PowerProfileSource
  /** The overlay the phone reads the profile from, when adb cannot read it. */
  readonly unreadable?: string
  /**
   * Why there is no usable profile, and what to do: `W_OVERLAY_UNREADABLE`,
   * `W_POWER_PROFILE_PLACEHOLDER` or `W_NO_POWER_PROFILE`. Absent when `profile` is there.
   */
  readonly problem?: EnergyWarning
  /** What went wrong on the way (`W_POWER_PROFILE_UNDECODABLE`: a candidate skipped). */
  readonly warnings: readonly EnergyWarning[]
  /** The commands run and the output lines the answer comes from. */
  readonly evidence: readonly Evidence[]
  /** Read from the host cache: `evidence` is what the first read of this build saw. */
  readonly cached: boolean
}

export interface FindPowerProfileOptions {
  /** The `powerProfile` option, already read: it wins, and the phone is not asked. */
  readonly option?: { readonly profile: PowerProfile; readonly path: string }
  /** A host folder for decoded profiles, one file per build. No cache when absent or empty. */
  readonly cacheDir?: string
  /** The phone's build fingerprint (`Capabilities.build`), the cache key. No cache when empty. */
  readonly build?: string
  /** APKs larger than this are not pulled. @default MAX_APK_BYTES */
  readonly maxApkBytes?: number
}

/** `source` in words. */
export function describePowerProfileSource(source: PowerProfileSource): string {
  switch (source.kind) {
    case 'option':
      return `powerProfile option (${source.path})`
    case 'file':
      return source.path
    case 'apk':
      return `${source.apk} (${source.entry})`
  }
}

/** What to do when the phone's profile cannot be had: said by every problem. */
export const POWER_PROFILE_FIX =
  "give the powerProfile option the phone's power_profile.xml: on a rooted or userdebug build, " +
  '`adb root`, `adb pull <the overlay or framework-res.apk>` and `aapt2 dump xmltree --file ' +
  "res/xml/power_profile.xml <apk>` (or `apktool d <apk>`) show it; or take it from the device's " +
  'source tree (device/<vendor>/<device>/overlay/frameworks/base/core/res/res/xml/power_profile.xml)'

/** Finds the phone's power profile (see the file comment). */
export async function findPowerProfile(
  device: AdbDevice,
  options: FindPowerProfileOptions = {},
): Promise<FoundPowerProfile> {
  if (options.option !== undefined) {
    const source = { kind: 'option', path: options.option.path } as const
    return {
      profile: options.option.profile,
      source,
      where: describePowerProfileSource(source),
      coverage: powerProfileCoverage(options.option.profile),
      warnings: [],
      evidence: [],
      cached: false,
    }
  }
  const max = options.maxApkBytes ?? MAX_APK_BYTES
  const { cacheDir = '', build = '' } = options
  if (cacheDir === '' || build === '') return fromRecord(await searchPhone(device, max), false)
  const file = cacheFile(cacheDir, build)
  const key = { build, signature: await cacheSignature(device) }
  const kept = await readCache(file, key)
  if (kept !== undefined) return kept
  return withCacheLock(file, async () => {
    // Another worker may have read it while this one waited.
    const now = await readCache(file, key)
    if (now !== undefined) return now
    const record = await searchPhone(device, max)
    await writeCache(file, key, record)
    return fromRecord(record, false)
  })
}

/**
 * What must not have changed for a cached answer to hold, beyond the build: the framework's
 * resolution of the profile (without its `For config` line, which follows the screen's
 * orientation and night mode) and `ls -l` of the APKs it names (size, date). Two commands, no pull;
 * it catches an overlay a rooted phone was given without a new build.
 */
async function cacheSignature(device: AdbDevice): Promise<string> {
  const lookup = await run(device, LOOKUP_ARGV)
  const parsed = lookup.exitCode === 0 ? parseOverlayLookup(lookup.stdout) : undefined
  const apks =
    parsed === undefined || parsed.steps.length === 0
      ? [FRAMEWORK_RES]
      : parsed.steps.map((s) => s.apk)
  const listed = await run(device, ['ls', '-l', ...new Set(apks)])
  const resolution = lookup.stdout
    .split('\n')
    .filter((l) => !l.startsWith('\tFor config'))
    .join('\n')
  return createHash('sha256').update(`${resolution}\0${listed.stdout}`).digest('hex')
}

/** What a search found, as kept in the cache (the profiles as their XML text). */
interface SearchRecord {
  readonly xml?: string
  readonly source?: PowerProfileSource
  readonly placeholder?: PowerProfileSource
  readonly unreadable?: string
  readonly problem?: EnergyWarning
  readonly warnings: readonly EnergyWarning[]
  readonly evidence: readonly Evidence[]
}

function fromRecord(record: SearchRecord, cached: boolean): FoundPowerProfile {
  const { xml, source, ...rest } = record
  if (xml === undefined || source === undefined) return { ...rest, cached }
  const profile = parsePowerProfile(xml)
  return {
    ...rest,
    profile,
    source,
    where: describePowerProfileSource(source),
    coverage: powerProfileCoverage(profile),
    cached,
  }
}

/** What one search of the phone carries along: the device, what it saw, what went wrong. */
interface Search {
  readonly device: AdbDevice
  readonly maxApkBytes: number
  /** Commands run and the lines the answer comes from. */
  readonly ev: Evidence[]
  readonly warnings: EnergyWarning[]
  /** Places adb cannot read where the phone's own profile may be. */
  readonly unlisted: string[]
}

interface Candidate {
  readonly apk: string
  readonly entry: string
  readonly overlayPackage?: string
  /** The phone named this APK as where the framework reads the profile. */
  readonly named: boolean
  /** Bytes already pulled (folder scan). */
  readonly bytes?: Buffer
}

/** The framework's resolution of its power profile (Android 12+). */
const LOOKUP_ARGV = [
  'cmd',
  'overlay',
  'lookup',
  '--verbose',
  'android',
  'android:xml/power_profile',
]

/** One search of the phone (nothing cached). */
async function searchPhone(device: AdbDevice, maxApkBytes: number): Promise<SearchRecord> {
  const search: Search = { device, maxApkBytes, ev: [], warnings: [], unlisted: [] }
  const { ev, warnings, unlisted } = search
  const candidates = await orderedCandidates(search)
  let placeholder: { source: PowerProfileSource; xml: string } | undefined
  for (const c of candidates) {
    const read = await readCandidate(search, c)
    if (read.kind === 'unreadable' && c.named) {
      return {
        unreadable: c.apk,
        problem: unreadableProblem(c),
        warnings,
        evidence: ev,
      }
    }
    // An enabled overlay adb cannot read may hold the profile: said if none is found.
    if (read.kind === 'unreadable') unlisted.push(c.apk)
    if (read.kind !== 'profile') continue
    if (isAospPlaceholder(read.profile)) {
      placeholder ??= { source: read.source, xml: read.xml }
      continue
    }
    return { xml: read.xml, source: read.source, warnings, evidence: ev }
  }
  // Some OEM ROMs read a plain-text file instead (ro.power_profile, /system/etc/power_profile.xml).
  for (const path of DEVICE_PROFILE_PATHS) {
    const out = await run(device, ['cat', path])
    const text = out.stdout
    if (out.exitCode !== 0 || !text.trimStart().startsWith('<')) {
      ev.push(evidence(out, firstLine(text)))
      continue
    }
    ev.push(evidence(out, firstLine(text.replace(/^<\?xml[^>]*>\s*/, ''))))
    const parsed = parseOrWarn(text, path, warnings)
    if (parsed === undefined) continue
    if (isAospPlaceholder(parsed)) {
      placeholder ??= { source: { kind: 'file', path }, xml: text }
      continue
    }
    return { xml: text, source: { kind: 'file', path }, warnings, evidence: ev }
  }
  if (placeholder !== undefined) {
    return {
      placeholder: placeholder.source,
      problem: placeholderProblem(placeholder.source, unlisted),
      warnings,
      evidence: ev,
    }
  }
  return { problem: noProfileProblem(unlisted), warnings, evidence: ev }
}

/** The APKs the framework's profile may come from, most likely first. */
async function orderedCandidates(search: Search): Promise<Candidate[]> {
  const { device, ev } = search
  const lookupRun = await run(device, LOOKUP_ARGV)
  const lookup = lookupRun.exitCode === 0 ? parseOverlayLookup(lookupRun.stdout) : undefined
  const winner = lookup === undefined ? undefined : winningStep(lookup)
  if (lookup !== undefined && winner !== undefined) {
    for (const s of lookup.steps) ev.push(evidence(lookupRun, `${stepLabel(s.kind)}: ${s.apk}`))
    if (lookup.value !== undefined) ev.push(evidence(lookupRun, lookup.value))
    return candidatesFromLookup(lookup)
  }
  ev.push(evidence(lookupRun, firstLine(lookupRun.stdout)))
  if (/failed to get the resource/.test(lookupRun.stdout)) return [] // no such resource at all
  const dumpRun = await run(device, ['cmd', 'overlay', 'dump'])
  const items = dumpRun.exitCode === 0 ? parseOverlayDump(dumpRun.stdout) : []
  if (items.length > 0) {
    const android = items
      .filter((i) => i.targetPackageName === 'android' && i.isEnabled)
      .sort((a, b) => b.priority - a.priority)
    for (const i of android) {
      ev.push(
        evidence(
          dumpRun,
          `${i.packageName}: ${i.baseCodePath} (${i.state}, priority ${i.priority})`,
        ),
      )
    }
    if (android.length === 0) ev.push(evidence(dumpRun, 'no enabled overlay targets android'))
    return [
      ...android.map((i) => ({
        apk: i.baseCodePath,
        entry: POWER_PROFILE_ENTRY,
        overlayPackage: i.packageName,
        named: false,
      })),
      { apk: FRAMEWORK_RES, entry: POWER_PROFILE_ENTRY, named: false },
    ]
  }
  ev.push(evidence(dumpRun, firstLine(dumpRun.stdout)))
  return [
    ...(await candidatesFromFolders(search)),
    { apk: FRAMEWORK_RES, entry: POWER_PROFILE_ENTRY, named: false },
  ]
}

/** The resolution's winner first (what the framework reads), then the steps it replaced. */
function candidatesFromLookup(lookup: OverlayLookup): Candidate[] {
  const entry =
    lookup.value !== undefined && /^res\/\S+\.xml$/.test(lookup.value)
      ? lookup.value
      : POWER_PROFILE_ENTRY
  const steps = lookup.steps.filter((s) => s.kind !== 'skipped' && s.kind !== 'no-entry')
  const seen = new Set<string>()
  const out: Candidate[] = []
  for (const [i, s] of [...steps].reverse().entries()) {
    if (seen.has(s.apk)) continue
    seen.add(s.apk)
    out.push({ apk: s.apk, entry: i === 0 ? entry : POWER_PROFILE_ENTRY, named: i === 0 })
  }
  return out
}

const PARTITION_RANK = new Map(OVERLAY_DIRS.map((d, i) => [d, i]))

/**
 * Static overlays targeting `android` in the folders the shell can list (recursively, as
 * OverlayScanner scans them), highest precedence first: partition order, then `priority` (the
 * order OverlayConfig gives static overlays of a partition without a config.xml).
 */
async function candidatesFromFolders(search: Search): Promise<Candidate[]> {
  const { device, ev, maxApkBytes, warnings } = search
  const found: Array<Candidate & { rank: number; priority: number }> = []
  for (const dir of OVERLAY_DIRS) {
    const apks = await listApks(search, dir)
    for (const { path, sizeBytes } of apks) {
      if (sizeBytes > maxApkBytes) continue
      let bytes: Buffer
      try {
        bytes = await pull(device, path)
      } catch (error) {
        if (!isEnergyError(error) || error.code !== DeviceErrors.DEVICE_FILE_MISSING) throw error
        continue
      }
      const manifest = await readManifest(bytes, path, warnings)
      const overlay = manifest === undefined ? undefined : overlayOf(manifest)
      if (overlay === undefined || overlay.targetPackage !== 'android' || !overlay.isStatic)
        continue
      ev.push({
        command: `aapt2 dump xmltree --file AndroidManifest.xml ${path} (read here)`,
        line: `overlay ${overlay.package} → android, static, priority ${overlay.priority}`,
      })
      found.push({
        apk: path,
        entry: POWER_PROFILE_ENTRY,
        overlayPackage: overlay.package,
        named: false,
        bytes,
        rank: PARTITION_RANK.get(dir) ?? 0,
        priority: overlay.priority,
      })
    }
  }
  found.sort((a, b) => b.rank - a.rank || b.priority - a.priority || (a.apk < b.apk ? 1 : -1))
  return found.map(({ rank: _r, priority: _p, ...c }) => c)
}

/** Up to this many APKs per overlay folder, this deep. */
const MAX_APKS = 64
const MAX_DEPTH = 3

/** `*.apk` under `dir` with their sizes, from `ls -l` (toybox's long format). */
async function listApks(
  { device, ev, unlisted }: Search,
  dir: string,
): Promise<Array<{ path: string; sizeBytes: number }>> {
  const apks: Array<{ path: string; sizeBytes: number }> = []
  const walk = async (path: string, depth: number): Promise<void> => {
    const out = await run(device, ['ls', '-l', path])
    if (out.exitCode !== 0) {
      if (depth === 0) {
        ev.push(evidence(out, firstLine(out.stdout)))
        if (/Permission denied/.test(out.stdout)) unlisted.push(dir)
      }
      return
    }
    for (const entry of parseLongListing(out.stdout)) {
      if (apks.length >= MAX_APKS) return
      const child = `${path}/${entry.name}`
      if (entry.type === 'd' && depth < MAX_DEPTH) await walk(child, depth + 1)
      else if (entry.type === '-' && entry.name.endsWith('.apk')) {
        apks.push({ path: child, sizeBytes: entry.sizeBytes })
      }
    }
  }
  await walk(dir, 0)
  return apks
}

interface LongListingEntry {
  readonly type: string
  readonly sizeBytes: number
  readonly name: string
}

/** toybox `ls -l` rows: `-rw-r--r-- 1 root root 28871 2009-01-01 08:00 name`. */
function parseLongListing(text: string): LongListingEntry[] {
  const rows: LongListingEntry[] = []
  for (const line of text.split('\n')) {
    const m =
      /^([-dlcbps])\S{9}\S*\s+\d+\s+\S+\s+\S+\s+(\d+)\s+\d{4}-\d\d-\d\d \d\d:\d\d (.+)$/.exec(
        line.replace(/\r$/, ''),
      )
    if (m !== null)
      rows.push({ type: m[1] as string, sizeBytes: Number(m[2]), name: m[3] as string })
  }
  return rows
}

type CandidateRead =
  | {
      readonly kind: 'profile'
      readonly profile: PowerProfile
      readonly xml: string
      readonly source: PowerProfileSource
    }
  | { readonly kind: 'unreadable' | 'skipped' }

/** Pulls and decodes one candidate; what cannot be decoded is a warning and `skipped`. */
async function readCandidate(search: Search, c: Candidate): Promise<CandidateRead> {
  const { device, ev, warnings, maxApkBytes } = search
  let bytes = c.bytes
  if (bytes === undefined) {
    const listed = await run(device, ['ls', '-l', c.apk])
    ev.push(evidence(listed, firstLine(listed.stdout)))
    if (/Permission denied/.test(listed.stdout)) return { kind: 'unreadable' }
    const row = listed.exitCode === 0 ? parseLongListing(listed.stdout)[0] : undefined
    if (row === undefined) return { kind: 'skipped' }
    if (row.sizeBytes > maxApkBytes) {
      warnings.push(
        undecodableWarning(c.apk, {
          code: DeviceErrors.APK_TOO_LARGE,
          message: `it is ${row.sizeBytes} bytes, more than the ${maxApkBytes} pulled`,
        }),
      )
      return { kind: 'skipped' }
    }
    bytes = await pull(device, c.apk)
    ev.push({ command: `adb pull ${c.apk}`, line: `${bytes.length} bytes` })
  }
  let xml: string | undefined
  try {
    const root = await readApkXml(bytes, c.entry, c.apk)
    xml = root === undefined ? undefined : apkXmlToText(root)
  } catch (error) {
    if (!isEnergyError(error)) throw error
    warnings.push(undecodableWarning(c.apk, error))
    return { kind: 'skipped' }
  }
  if (xml === undefined) {
    ev.push({ command: `read ${c.entry} in ${c.apk}`, line: 'no such entry' })
    return { kind: 'skipped' }
  }
  const profile = parseOrWarn(xml, `${c.apk} (${c.entry})`, warnings)
  if (profile === undefined) return { kind: 'skipped' }
  const overlayPackage =
    c.overlayPackage ?? (c.apk === FRAMEWORK_RES ? undefined : await packageOf(bytes, c.apk))
  ev.push({
    command: `read ${c.entry} in ${c.apk}`,
    line: `${Object.keys(profile.items).length} items, ${Object.keys(profile.arrays).length} arrays`,
  })
  return {
    kind: 'profile',
    profile,
    xml,
    source: {
      kind: 'apk',
      apk: c.apk,
      entry: c.entry,
      ...(overlayPackage === undefined ? {} : { overlayPackage }),
    },
  }
}

async function readManifest(bytes: Buffer, apk: string, warnings: EnergyWarning[]) {
  try {
    return await readApkXml(bytes, 'AndroidManifest.xml', apk)
  } catch (error) {
    if (!isEnergyError(error)) throw error
    warnings.push(undecodableWarning(apk, error))
    return undefined
  }
}

/** The overlay package an APK declares; none when its manifest cannot be read. */
async function packageOf(bytes: Buffer, apk: string): Promise<string | undefined> {
  try {
    const manifest = await readApkXml(bytes, 'AndroidManifest.xml', apk)
    return manifest === undefined ? undefined : overlayOf(manifest)?.package
  } catch (error) {
    if (!isEnergyError(error)) throw error
    return undefined
  }
}

function parseOrWarn(
  xml: string,
  where: string,
  warnings: EnergyWarning[],
): PowerProfile | undefined {
  try {
    return parsePowerProfile(xml)
  } catch (error) {
    if (!isEnergyError(error)) throw error
    warnings.push(undecodableWarning(where, error))
    return undefined
  }
}

function undecodableWarning(
  where: string,
  error: Pick<EnergyError, 'code' | 'message'>,
): EnergyWarning {
  return {
    code: 'W_POWER_PROFILE_UNDECODABLE',
    severity: 'warning',
    message: `${where} could not be read as a power profile [${error.code}: ${error.message.split('\n')[0]?.replace(/^\[[A-Z_]+\] /, '') ?? ''}]; the next place the framework could read it from was tried`,
  }
}

function unreadableProblem(c: Candidate): EnergyWarning {
  const dir = c.apk.slice(0, c.apk.indexOf('/', 1)) || c.apk
  return {
    code: 'W_OVERLAY_UNREADABLE',
    severity: 'warning',
    message: `the phone reads its power profile from ${c.apk} (${c.entry}), which adb cannot read: SELinux keeps the shell out of ${dir}'s overlays on user builds (framework-res.apk holds only AOSP's placeholder); ${POWER_PROFILE_FIX}`,
  }
}

function placeholderProblem(
  source: PowerProfileSource,
  unlisted: readonly string[],
): EnergyWarning {
  return {
    code: 'W_POWER_PROFILE_PLACEHOLDER',
    severity: 'warning',
    message: `the only power profile found, ${describePowerProfileSource(source)}, is AOSP's placeholder (0.1 mA for the screen, radios and CPU: "deliberately incorrect dummy values"), not this phone's, so it is not used${unlistedNote(unlisted)}; ${POWER_PROFILE_FIX}`,
  }
}

function noProfileProblem(unlisted: readonly string[]): EnergyWarning {
  return {
    code: 'W_NO_POWER_PROFILE',
    severity: 'warning',
    message: `no power profile was found on the phone (framework-res.apk and its overlays, ${DEVICE_PROFILE_PATHS.join(', ')})${unlistedNote(unlisted)}; ${POWER_PROFILE_FIX}`,
  }
}

function unlistedNote(unlisted: readonly string[]): string {
  return unlisted.length === 0
    ? ''
    : ` (adb cannot read ${unlisted.join(', ')}, where the phone's own profile may be)`
}

function stepLabel(kind: string): string {
  const labels: Record<string, string> = {
    initial: 'Found initial',
    better: 'Found better',
    overlaid: 'Overlaid',
    'overlaid-inline': 'Overlaid inline',
  }
  return labels[kind] ?? kind
}

function firstLine(text: string): string | undefined {
  return text
    .split('\n')
    .find((l) => l.trim() !== '')
    ?.trim()
}

// ---- the host cache: one JSON file per build fingerprint ----

const CACHE_VERSION = 1

function cacheFile(dir: string, build: string): string {
  const safe = build.replace(/[^\w.-]+/g, '_').slice(0, 120)
  const hash = createHash('sha256').update(build).digest('hex').slice(0, 10)
  return join(dir, `${safe}-${hash}.json`)
}

interface CacheKey {
  readonly build: string
  readonly signature: string
}

async function readCache(file: string, key: CacheKey): Promise<FoundPowerProfile | undefined> {
  let text: string
  try {
    text = await readFile(file, 'utf8')
  } catch {
    return undefined // not read yet for this build
  }
  try {
    const kept = JSON.parse(text) as {
      version?: number
      build?: string
      signature?: string
      found?: SearchRecord
    }
    if (
      kept.version !== CACHE_VERSION ||
      kept.build !== key.build ||
      kept.signature !== key.signature ||
      kept.found === undefined
    ) {
      return undefined
    }
    return fromRecord(kept.found, true)
  } catch {
    return undefined // damaged: read the phone again and rewrite it
  }
}

async function writeCache(file: string, key: CacheKey, found: SearchRecord): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true })
  const partial = `${file}.${process.pid}.partial`
  const kept = { version: CACHE_VERSION, ...key, found }
  await writeFile(partial, `${JSON.stringify(kept, null, 1)}\n`)
  await rename(partial, file)
}

/** How long a worker waits for another one reading the same build. */
const LOCK_WAIT_MS = 180_000
/** A lock older than this was left by a worker that died. */
const LOCK_STALE_MS = 600_000

/** Runs `fn` holding `<file>.lock` (a directory: mkdir is atomic), waiting for another holder. */
async function withCacheLock<T>(file: string, fn: () => Promise<T>): Promise<T> {
  const lock = `${file}.lock`
  await mkdir(join(file, '..'), { recursive: true })
  const deadline = Date.now() + LOCK_WAIT_MS
  let held = false
  while (!held) {
    try {
      await mkdir(lock)
      held = true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const age = await stat(lock).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      )
      if (age > LOCK_STALE_MS) await rm(lock, { recursive: true, force: true })
      else if (Date.now() > deadline)
        break // read it ourselves rather than wait for ever
      else await new Promise((resolve) => setTimeout(resolve, 250))
    }
  }
  try {
    return await fn()
  } finally {
    if (held) await rm(lock, { recursive: true, force: true })
  }
}
