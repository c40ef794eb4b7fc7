/**
 * Capability probe: what this device (and app) lets us measure, each answer with its evidence (the
 * command and the output line it came from) so a user can see why.
 *
 * Fuel gauge unit and sign heuristic (documented in docs/devices.md):
 * - unit: a running phone draws 20 mA–5 A. |current_now| ≥ 20 000 can only be µA (the kernel ABI);
 *   1 ≤ |current_now| < 20 000 is read as mA (vendor quirk: 20 000 µA = 20 mA is below any awake
 *   phone's draw). 0 gives no answer.
 * - sign: only judged while discharging (not AC/USB/wireless powered per `dumpsys battery`, or
 *   sysfs `status` = Discharging). Kernel convention is negative = discharging; a positive value
 *   while discharging means the vendor flipped it. While charging the sign says nothing (the
 *   charger's current minus the phone's draw can be either), so it is `unknown`.
 * - voltage_now: µV per the ABI (3.0–4.6 V → 3e6–4.6e6); 3000–4600 is read as mV.
 */
import {
  parseDumpsysBattery,
  parseDumpsysPowerstats,
  type DumpsysBatteryState,
  type PowerStatsChannel,
} from '../formats/dumpsys/index.js'
import { decodePowerTrace, formatPerfettoTextConfig } from '../formats/perfetto/index.js'
import { parseSysfsInt, type CurrentConvention } from '../formats/sysfs/index.js'
import { EnergyError, isEnergyError } from '../model/index.js'
import type { AdbDevice } from './client.js'
import { DeviceErrors } from './errors.js'
import { quoteShellArg, shell, shellScript, type ShellResult } from './shell.js'
import { pull, statFile } from './transfer.js'

/** Where an answer came from: the command and the output line (absent when nothing matched). */
export interface Evidence {
  readonly command: string
  readonly line?: string
  /** Exit status of the command, when not 0. */
  readonly exitCode?: number
}

/** ODPM (on-device power monitor) rails, readable through `dumpsys powerstats`. */
export interface OdpmCapability {
  readonly available: boolean
  /** Where the rails were seen: the framework's channel list, or a short Perfetto session. */
  readonly via?: 'dumpsys-powerstats' | 'perfetto'
  /** Rail (channel) names, e.g. `S10M_VDD_TPU`. */
  readonly rails: ReadonlyArray<{
    readonly id: number
    readonly name: string
    readonly subsystem: string
  }>
  readonly evidence: readonly Evidence[]
}

export type CurrentUnit = 'uA' | 'mA'
/** `negative-discharge` is the kernel convention; `positive-discharge` a vendor quirk. */
export type CurrentSign = 'negative-discharge' | 'positive-discharge' | 'unknown'

/** The battery fuel gauge as sysfs exposes it. */
export interface FuelGaugeCapability {
  readonly available: boolean
  /** `/sys/class/power_supply/<node>`; the first node whose `type` is `Battery`. */
  readonly node?: string
  /** Raw `current_now` value read during the probe. */
  readonly currentNowRaw?: number
  readonly currentUnit?: CurrentUnit | 'unknown'
  readonly currentSign?: CurrentSign
  /** Raw `voltage_now` value. */
  readonly voltageNowRaw?: number
  readonly voltageUnit?: 'uV' | 'mV' | 'unknown'
  /** Multiply a raw `current_now` by this to get amperes drawn from the battery (positive). */
  readonly dischargeAmperesPerUnit?: number
  /** Unit and sign for `normalizeCurrent` (src/formats/sysfs), when both were detected. */
  readonly currentConvention?: CurrentConvention
  readonly evidence: readonly Evidence[]
}

/** Power sources the framework reports (`dumpsys battery`). */
export interface ChargingCapability {
  readonly ac: boolean
  readonly usb: boolean
  readonly wireless: boolean
  readonly dock: boolean
  /** Any external power: fuel-gauge readings are disturbed while true. */
  readonly powered: boolean
  /** `status:` code from BatteryManager (2 charging, 3 discharging, 4 not charging, 5 full). */
  readonly status?: number
  readonly evidence: readonly Evidence[]
}

export interface ToolCapability {
  readonly available: boolean
  readonly evidence: readonly Evidence[]
}

/** Whether the app can be traced. `unknown`: see docs/devices.md (the flag is not always printed). */
export interface AppCapability {
  readonly packageName: string
  readonly installed: boolean
  /** `DEBUGGABLE` seen in the package's flags (false also when the flags could not be read). */
  readonly debuggable: boolean
  readonly profileable: 'yes' | 'no' | 'unknown'
  readonly versionName?: string
  readonly evidence: readonly Evidence[]
}

/** Everything the probe found. */
export interface Capabilities {
  readonly serial: string
  readonly model: string
  readonly manufacturer: string
  /** `ro.build.fingerprint` (else `ro.build.id`): which build, for what is kept per phone and build. */
  readonly build: string
  /** `ro.build.version.sdk` (API level); 0 when unreadable. */
  readonly sdk: number
  readonly odpm: OdpmCapability
  readonly fuelGauge: FuelGaugeCapability
  readonly charging: ChargingCapability
  readonly perfetto: ToolCapability
  readonly simpleperf: ToolCapability
  /** Present when `app` was given. */
  readonly app?: AppCapability
  /**
   * The CPUs of each cluster (cpufreq policies' `related_cpus`, sorted by first CPU: little first);
   * empty when sysfs does not say. Lets a CPU schedule be matched to the clusters' power rails.
   */
  readonly cpuClusters: ReadonlyArray<readonly number[]>
  /**
   * Each cluster's frequencies in kHz, parallel to `cpuClusters`: its cpufreq policy's
   * `scaling_available_frequencies` then `scaling_boost_frequencies`, in the kernel's order
   * (ascending on the drivers seen), as the framework reads them (CpuScalingPolicyReader); an
   * Android 14+ profile's `cpu.scaling_step_power.policyN` gives one current per entry. Empty
   * for a cluster whose policy lists none (and empty when `cpuClusters` is).
   */
  readonly cpuFrequenciesKhz: ReadonlyArray<readonly number[]>
  readonly evidence: readonly Evidence[]
}

/** Options of {@link probeCapabilities}. */
export interface ProbeOptions {
  /** Package name of the app under test. */
  readonly app?: string
  /**
   * When `dumpsys powerstats` lists no channels (Android 11 and older Pixels with ODPM), record a
   * one-second Perfetto `android.power` session and look for rail descriptors. Costs ~2 s.
   * @default true
   */
  readonly perfettoRails?: boolean
}

export async function probeCapabilities(
  device: AdbDevice,
  options: ProbeOptions = {},
): Promise<Capabilities> {
  const props = await run(device, ['getprop'])
  const prop = (key: string): { value: string; line?: string } => {
    const line = findLine(props.stdout, new RegExp(`^\\[${key.replace(/\./g, '\\.')}\\]: \\[`))
    const value = line === undefined ? '' : (/\]: \[(.*)\]$/.exec(line)?.[1] ?? '')
    return line === undefined ? { value } : { value, line }
  }
  const model = prop('ro.product.model')
  const manufacturer = prop('ro.product.manufacturer')
  const sdk = prop('ro.build.version.sdk')
  const fingerprint = prop('ro.build.fingerprint')
  const build = fingerprint.value === '' ? prop('ro.build.id').value : fingerprint.value
  const sdkLevel = /^\d+$/.test(sdk.value) ? Number(sdk.value) : 0
  const charging = await probeCharging(device)
  const perfetto = await probeTool(device, '/system/bin/perfetto')
  let odpm = await probeOdpm(device)
  if (!odpm.available && perfetto.available && options.perfettoRails !== false) {
    const viaPerfetto = await probePerfettoRails(device)
    odpm = { ...viaPerfetto, evidence: [...odpm.evidence, ...viaPerfetto.evidence] }
  }
  const clusters = await probeCpuClusters(device)
  const capabilities: Capabilities = {
    serial: device.serial,
    model: model.value,
    manufacturer: manufacturer.value,
    build,
    sdk: sdkLevel,
    odpm,
    fuelGauge: await probeFuelGauge(device, charging),
    charging,
    perfetto,
    simpleperf: await probeTool(device, '/system/bin/simpleperf'),
    cpuClusters: clusters.clusters,
    cpuFrequenciesKhz: clusters.frequenciesKhz,
    evidence: [
      ...[model, manufacturer, sdk].map((p) => evidence(props, p.line)),
      clusters.evidence,
      ...(clusters.frequencyEvidence === undefined ? [] : [clusters.frequencyEvidence]),
    ],
  }
  if (options.app === undefined) return capabilities
  return { ...capabilities, app: await probeApp(device, options.app, sdkLevel) }
}

const CPUFREQ = '/sys/devices/system/cpu/cpufreq'

/**
 * CPU clusters from sysfs: one cpufreq policy per cluster (`policy<first cpu>`), its
 * `related_cpus` a space-separated list, and its frequencies (`scaling_available_frequencies`,
 * then `scaling_boost_frequencies` where the driver has them). World-readable on user builds.
 */
async function probeCpuClusters(device: AdbDevice): Promise<{
  clusters: number[][]
  frequenciesKhz: number[][]
  evidence: Evidence
  frequencyEvidence?: Evidence
}> {
  const listed = await run(device, ['ls', CPUFREQ])
  const policies = listed.stdout
    .split(/\s+/)
    .filter((name) => /^policy\d+$/.test(name))
    .sort((a, b) => Number(a.slice(6)) - Number(b.slice(6)))
  if (listed.exitCode !== 0 || policies.length === 0) {
    return {
      clusters: [],
      frequenciesKhz: [],
      evidence: evidence(listed, firstLine(listed.stdout)),
    }
  }
  const read = await run(device, ['cat', ...policies.map((p) => `${CPUFREQ}/${p}/related_cpus`)])
  const lines = read.stdout.split('\n').filter((l) => l.trim() !== '')
  const clusters = lines.map((l) => l.trim().split(/\s+/).map(Number))
  const valid =
    read.exitCode === 0 &&
    clusters.length === policies.length &&
    clusters.every((c) => c.length > 0 && c.every((n) => Number.isInteger(n) && n >= 0))
  const found = {
    evidence: evidence(read, lines.join(' | ') || firstLine(read.stdout)),
  }
  if (!valid) return { clusters: [], frequenciesKhz: [], ...found }
  // One line per policy, in policy order: a missing boost file prints nothing (`|| true`).
  const script = policies
    .map((p) => {
      const dir = `${CPUFREQ}/${p}`
      const available = quoteShellArg(`${dir}/scaling_available_frequencies`)
      const boost = quoteShellArg(`${dir}/scaling_boost_frequencies`)
      return `echo $(cat ${available} 2>/dev/null) $(cat ${boost} 2>/dev/null)`
    })
    .join('; ')
  const freqs = await shellScript(device, script)
  const freqLines = freqs.stdout.split('\n').slice(0, policies.length)
  const frequenciesKhz = policies.map((_, i) =>
    (freqLines[i] ?? '')
      .trim()
      .split(/\s+/)
      .filter((t) => /^\d+$/.test(t))
      .map(Number),
  )
  // Sort both by first CPU (little first), keeping each cluster's frequencies with it.
  const order = clusters
    .map((c, i) => i)
    .sort((a, b) => (clusters[a]?.[0] ?? 0) - (clusters[b]?.[0] ?? 0))
  return {
    clusters: order.map((i) => clusters[i] as number[]),
    frequenciesKhz: order.map((i) => frequenciesKhz[i] as number[]),
    ...found,
    frequencyEvidence: {
      command: `cat ${CPUFREQ}/policy*/scaling_available_frequencies (and scaling_boost_frequencies)`,
      line: frequenciesKhz
        .map((f, i) => `${policies[i] ?? ''}: ${f.length} frequencies`)
        .join(' | '),
    },
  }
}

/** Channels of `dumpsys powerstats` (parsed by src/formats/dumpsys), or the parser's error. */
function powerstatsChannels(stdout: string): readonly PowerStatsChannel[] | EnergyError {
  try {
    return parseDumpsysPowerstats(stdout).channels
  } catch (error) {
    if (isEnergyError(error)) return error
    throw error
  }
}

async function probeOdpm(device: AdbDevice): Promise<OdpmCapability> {
  const result = await run(device, ['dumpsys', 'powerstats'])
  // Android 12/13 print the channel items flush left, later releases indent them: the parser
  // reads both layouts.
  const parsed = result.exitCode === 0 ? powerstatsChannels(result.stdout) : []
  const rails = parsed instanceof EnergyError ? [] : parsed
  const lineOf = (c: PowerStatsChannel): string | undefined =>
    findLine(result.stdout, new RegExp(`ChannelId: ${c.id}, ChannelName: `))
  return {
    available: rails.length > 0,
    ...(rails.length > 0 ? { via: 'dumpsys-powerstats' as const } : {}),
    rails: rails.map(({ id, name, subsystem }) => ({ id, name, subsystem })),
    evidence:
      rails.length > 0
        ? rails.slice(0, 3).map((r) => evidence(result, lineOf(r)))
        : [
            evidence(
              result,
              parsed instanceof EnergyError
                ? parsed.message.split('\n')[0]
                : firstLine(result.stdout),
            ),
          ],
  }
}

/** Where perfetto may write on user builds (SELinux forbids /data/local/tmp since Android 12). */
const PERFETTO_PROBE_TRACE = '/data/misc/perfetto-traces/vitest-energy-probe.pftrace'

/**
 * A one-second `android.power` session with `collect_power_rails: true`: devices with ODPM write
 * `power_rails.rail_descriptor` packets. The config goes through stdin (`-c -`), the only way
 * perfetto accepts one from the shell user on Android 12+.
 */
async function probePerfettoRails(device: AdbDevice): Promise<OdpmCapability> {
  const config = formatPerfettoTextConfig({
    buffers: [{ sizeKb: 1024, fillPolicy: 'RING_BUFFER', unknownFields: [] }],
    dataSources: [
      {
        name: 'android.power',
        androidPowerConfig: {
          batteryPollMs: 250,
          batteryCounters: [],
          collectPowerRails: true,
          unknownFields: [],
        },
        unknownFields: [],
        dataSourceUnknownFields: [],
      },
    ],
    durationMs: 1000,
    unknownFields: [],
  })
  const trace = quoteShellArg(PERFETTO_PROBE_TRACE)
  const result = await shellScript(
    device,
    `rm -f ${trace}; echo ${quoteShellArg(config)} | perfetto --txt -c - -o ${trace} 2>&1`,
  )
  const command = `perfetto --txt -c - -o ${PERFETTO_PROBE_TRACE} (android.power, collect_power_rails)`
  const failed = (line: string | undefined): OdpmCapability => ({
    available: false,
    rails: [],
    evidence: [
      {
        command,
        ...(line === undefined ? {} : { line }),
        ...(result.exitCode === 0 ? {} : { exitCode: result.exitCode }),
      },
    ],
  })
  if (result.exitCode !== 0 || (await statFile(device, PERFETTO_PROBE_TRACE)) === undefined) {
    return failed(lastLine(result.stdout) ?? 'no trace file written')
  }
  let decoded
  try {
    decoded = decodePowerTrace(await pull(device, PERFETTO_PROBE_TRACE))
  } catch (error) {
    if (!isEnergyError(error)) throw error
    return failed(error.message.split('\n')[0])
  } finally {
    await shell(device, ['rm', '-f', PERFETTO_PROBE_TRACE]).catch(() => undefined)
  }
  const rails = decoded.railDescriptors.map((d) => ({
    id: d.index,
    name: d.railName,
    subsystem: d.subsystem,
  }))
  if (rails.length === 0) return failed('the trace has no power_rails rail_descriptor packets')
  return {
    available: true,
    via: 'perfetto',
    rails,
    evidence: rails.slice(0, 3).map((r) => ({
      command,
      line: `rail_descriptor { index: ${r.id} rail_name: "${r.name}" subsys_name: "${r.subsystem}" }`,
    })),
  }
}

async function probeCharging(device: AdbDevice): Promise<ChargingCapability> {
  const result = await run(device, ['dumpsys', 'battery'])
  let state: DumpsysBatteryState | undefined
  let failure: string | undefined
  try {
    state = parseDumpsysBattery(result.stdout)
  } catch (error) {
    if (!isEnergyError(error)) throw error
    failure = error.message.split('\n')[0]
  }
  const labels = ['AC powered', 'USB powered', 'Wireless powered', 'Dock powered', 'status']
  const lines = labels
    .map((label) => findLine(result.stdout, new RegExp(`^\\s*${label}: `)))
    .filter((l): l is string => l !== undefined)
  const ac = state?.acPowered ?? false
  const usb = state?.usbPowered ?? false
  const wireless = state?.wirelessPowered ?? false
  const dock = state?.dockPowered ?? false
  const base = {
    ac,
    usb,
    wireless,
    dock,
    powered: ac || usb || wireless || dock,
    evidence:
      lines.length > 0
        ? lines.map((l) => evidence(result, l))
        : [evidence(result, failure ?? firstLine(result.stdout))],
  }
  return state?.status === undefined ? base : { ...base, status: state.status }
}

/** Reads a sysfs integer node (parsed by src/formats/sysfs); no value when absent or malformed. */
async function readSysfsInt(
  device: AdbDevice,
  path: string,
): Promise<{ value?: number; evidence: Evidence }> {
  const result = await run(device, ['cat', path])
  if (result.exitCode !== 0) return { evidence: evidence(result, firstLine(result.stdout)) }
  try {
    const value = parseSysfsInt(result.stdout, path)
    return { value, evidence: evidence(result, result.stdout.trim()) }
  } catch (error) {
    if (!isEnergyError(error)) throw error
    return { evidence: evidence(result, firstLine(result.stdout) ?? '(empty)') }
  }
}

/** The unit of a raw `current_now` reading (see the file comment). */
export function currentUnitOf(raw: number): CurrentUnit | 'unknown' {
  const magnitude = Math.abs(raw)
  if (magnitude >= 20_000) return 'uA'
  if (magnitude >= 1) return 'mA'
  return 'unknown'
}

/** The sign convention of a raw `current_now` read while discharging. */
export function currentSignOf(raw: number, discharging: boolean): CurrentSign {
  if (!discharging || raw === 0) return 'unknown'
  return raw < 0 ? 'negative-discharge' : 'positive-discharge'
}

export function voltageUnitOf(raw: number): 'uV' | 'mV' | 'unknown' {
  if (raw >= 2_500_000 && raw <= 5_000_000) return 'uV'
  if (raw >= 2_500 && raw <= 5_000) return 'mV'
  return 'unknown'
}

async function probeFuelGauge(
  device: AdbDevice,
  charging: ChargingCapability,
): Promise<FuelGaugeCapability> {
  const root = '/sys/class/power_supply'
  const listing = await run(device, ['ls', root])
  const evidences: Evidence[] = [evidence(listing, firstLine(listing.stdout))]
  const nodes =
    listing.exitCode === 0 ? listing.stdout.split(/\s+/).filter((n) => n.length > 0) : []
  // Prefer the conventional name, then any node of type Battery.
  nodes.sort((a, b) => Number(b === 'battery') - Number(a === 'battery'))
  for (const node of nodes) {
    const typeResult = await run(device, ['cat', `${root}/${node}/type`])
    if (typeResult.stdout.trim() !== 'Battery') continue
    evidences.push(evidence(typeResult, typeResult.stdout.trim()))
    const dir = `${root}/${node}`
    const current = await readSysfsInt(device, `${dir}/current_now`)
    const voltage = await readSysfsInt(device, `${dir}/voltage_now`)
    const status = await run(device, ['cat', `${dir}/status`])
    evidences.push(current.evidence, voltage.evidence)
    const statusText = status.exitCode === 0 ? status.stdout.trim() : ''
    if (statusText !== '') evidences.push(evidence(status, statusText))
    if (current.value === undefined) {
      return { available: false, node: dir, evidence: evidences }
    }
    const discharging =
      statusText === 'Discharging' ||
      (statusText === '' && !charging.powered && charging.status !== 2)
    const unit = currentUnitOf(current.value)
    const sign = currentSignOf(current.value, discharging && !charging.powered)
    const perUnit = unit === 'uA' ? 1e-6 : unit === 'mA' ? 1e-3 : undefined
    const signFactor =
      sign === 'positive-discharge' ? 1 : sign === 'negative-discharge' ? -1 : undefined
    const gauge: FuelGaugeCapability = {
      available: true,
      node: dir,
      currentNowRaw: current.value,
      currentUnit: unit,
      currentSign: sign,
      evidence: evidences,
      ...(voltage.value === undefined
        ? {}
        : { voltageNowRaw: voltage.value, voltageUnit: voltageUnitOf(voltage.value) }),
      ...(perUnit === undefined || signFactor === undefined || unit === 'unknown'
        ? {}
        : {
            dischargeAmperesPerUnit: perUnit * signFactor,
            // normalizeCurrent's sign brings raw values to the kernel convention (+ = charging).
            currentConvention: { unit, sign: sign === 'positive-discharge' ? -1 : 1 },
          }),
    }
    return gauge
  }
  return { available: false, evidence: evidences }
}

async function probeTool(device: AdbDevice, path: string): Promise<ToolCapability> {
  const result = await run(device, ['ls', path])
  return {
    available: result.exitCode === 0 && result.stdout.includes(path),
    evidence: [evidence(result, firstLine(result.stdout))],
  }
}

/** Flags inside `name=[ A B C ]` on a `dumpsys package` line. */
function flagsOf(line: string | undefined): string[] {
  const match = line === undefined ? null : /=\[\s*(.*?)\s*\]/.exec(line)
  return match === null ? [] : (match[1] ?? '').split(/\s+/).filter((f) => f.length > 0)
}

/**
 * Reads `dumpsys package <pkg>`: the `Package [<pkg>]` section's `flags=[ … ]`, `pkgFlags=[ … ]`
 * and `privateFlags=[ … ]` lines (AOSP Settings.dumpPackageLPr, printFlags with FLAG_DUMP_SPEC).
 */
export function parseDumpsysPackage(
  stdout: string,
  packageName: string,
  sdk: number,
): Omit<AppCapability, 'evidence'> & { lines: string[] } {
  const lines = stdout.split('\n')
  const header = `Package [${packageName}]`
  const start = lines.findIndex((l) => l.trim().startsWith(header))
  if (start < 0) {
    return { packageName, installed: false, debuggable: false, profileable: 'no', lines: [] }
  }
  const indent = /^\s*/.exec(lines[start] ?? '')?.[0].length ?? 0
  const section: string[] = []
  for (let i = start + 1; i < lines.length; i++) {
    const line = lines[i] ?? ''
    if (line.trim() !== '' && (/^\s*/.exec(line)?.[0].length ?? 0) <= indent) break
    section.push(line)
  }
  const pick = (key: string): string | undefined =>
    section.find((l) => new RegExp(`^\\s*${key}=\\[`).test(l))
  const flagsLine = pick('flags')
  const pkgFlagsLine = pick('pkgFlags')
  const privateLine = pick('privateFlags') ?? pick('privatePkgFlags')
  const flags = new Set([...flagsOf(flagsLine), ...flagsOf(pkgFlagsLine)])
  const privateFlags = flagsOf(privateLine)
  const debuggable = flags.has('DEBUGGABLE')
  const profileableToken = [...flags, ...privateFlags].some((f) => /PROFILEABLE/.test(f))
  let profileable: AppCapability['profileable']
  if (debuggable || profileableToken) profileable = 'yes'
  else if (sdk > 0 && sdk < 29)
    profileable = 'no' // <profileable> exists from API 29
  else profileable = 'unknown'
  const versionLine = section.find((l) => /^\s*versionName=/.test(l))
  const used = [header, flagsLine, pkgFlagsLine, privateLine, versionLine].filter(
    (l): l is string => l !== undefined,
  )
  return {
    packageName,
    installed: true,
    debuggable,
    profileable,
    ...(versionLine === undefined ? {} : { versionName: versionLine.split('=')[1]?.trim() ?? '' }),
    lines: used.map((l) => l.trim()),
  }
}

async function probeApp(
  device: AdbDevice,
  packageName: string,
  sdk: number,
): Promise<AppCapability> {
  const result = await run(device, ['dumpsys', 'package', packageName])
  const noService = findLine(result.stdout, /^Can't find service: package/)
  if (noService !== undefined) {
    // No package service to dump (stripped builds, the virtual device): `pm path` still says
    // whether it is installed, but not its flags.
    const path = await run(device, ['pm', 'path', packageName])
    const line = findLine(path.stdout, /^package:/)
    return {
      packageName,
      installed: path.exitCode === 0 && line !== undefined,
      debuggable: false,
      profileable: 'unknown',
      evidence: [evidence(result, noService), evidence(path, line ?? firstLine(path.stdout))],
    }
  }
  const { lines, ...app } = parseDumpsysPackage(result.stdout, packageName, sdk)
  return {
    ...app,
    evidence:
      lines.length > 0
        ? lines.map((l) => evidence(result, l))
        : [evidence(result, firstLine(result.stdout))],
  }
}

/**
 * The app's launcher activity as the package manager resolves it
 * (`cmd package resolve-activity --brief -c android.intent.category.LAUNCHER <pkg>`): the line
 * `<pkg>/<activity>`, or undefined (`No activity found`), with the command's result as evidence.
 */
export async function resolveLauncherActivity(
  device: AdbDevice,
  pkg: string,
): Promise<{ readonly component: string | undefined; readonly result: ShellResult }> {
  const result = await shell(device, [
    'cmd',
    'package',
    'resolve-activity',
    '--brief',
    '-c',
    'android.intent.category.LAUNCHER',
    pkg,
  ])
  const component =
    result.exitCode === 0
      ? result.stdout
          .split('\n')
          .map((l) => l.trim())
          .find((l) => l.startsWith(`${pkg}/`))
      : undefined
  return { component, result }
}

/** Throws E_APP_NOT_INSTALLED / E_NOT_PROFILEABLE when the probe shows the app cannot be traced. */
export function assertProfileable(app: AppCapability, serial: string): void {
  if (!app.installed) {
    throw new EnergyError({
      code: DeviceErrors.APP_NOT_INSTALLED,
      message: `${app.packageName} is not installed`,
      hint: 'Install the app under test first (`adb install -r app.apk`), or fix the package name.',
      details: { serial, package: app.packageName },
    })
  }
  if (app.profileable === 'no') throw notProfileable(app.packageName, serial)
}

/** The error for an app that `am profile` / simpleperf refuse (also used on a SecurityException). */
export function notProfileable(packageName: string, serial: string, cause?: unknown): EnergyError {
  return new EnergyError({
    code: DeviceErrors.NOT_PROFILEABLE,
    message: `${packageName} is neither debuggable nor profileable by shell, so it cannot be method-traced or sampled`,
    hint:
      'Add <profileable android:shell="true"/> inside <application> in the manifest (API 29+), ' +
      'or install a debuggable build (debug builds inflate energy: prefer profileable).',
    details: { serial, package: packageName },
    cause,
  })
}

/** Runs `argv` (quoted) with stderr merged into stdout. */
export async function run(device: AdbDevice, argv: readonly string[]): Promise<ShellResult> {
  // stderr is merged into stdout by legacy adb shell; a `2>&1` keeps it so on v2 servers too.
  return argv.length === 1 && argv[0] === 'getprop'
    ? shell(device, argv)
    : shellScript(device, `${argv.map(quoteShellArg).join(' ')} 2>&1`)
}

/** The command of `result` and the output line an answer came from. */
export function evidence(result: ShellResult, line: string | undefined): Evidence {
  return {
    command: result.command.replace(/ 2>&1$/, ''),
    ...(line === undefined ? {} : { line: line.trim() }),
    ...(result.exitCode === 0 ? {} : { exitCode: result.exitCode }),
  }
}

function findLine(text: string, pattern: RegExp): string | undefined {
  return text
    .split('\n')
    .find((l) => pattern.test(l.replace(/\r$/, '')))
    ?.replace(/\r$/, '')
}

function lastLine(text: string): string | undefined {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .at(-1)
    ?.trim()
}

function firstLine(text: string): string | undefined {
  const line = text.split('\n').find((l) => l.trim() !== '')
  return line?.trim()
}
