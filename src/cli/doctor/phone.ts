/**
 * The checks run on each phone a run would use: the capability probe (as a worker probes), then
 * what it implies — Android version, power source and why, fuel gauge, charging, the phone's
 * power profile, app and profileable, simpleperf, perfetto, clock mapping. The one thing a run
 * learns only by trying — whether `am profile` accepts an app whose `dumpsys package` does not
 * say — is tried here the same way (`askAmProfile`).
 */
import {
  assertProfileable,
  autoPowerSource,
  mapDeviceClock,
  notProfileable,
  probeCapabilities,
  resolveLauncherActivity,
  shell,
  type AdbDevice,
  type Capabilities,
  type Evidence,
  type PowerSourceChoice,
  type ShellResult,
} from '../../device/index.js'
import { isEnergyError, type EnergyError } from '../../model/index.js'
import { evidenceOf, lineOf, run, warnedBy } from './_util.js'
import { checkPowerProfile } from './power-profile.js'
import type { DoctorCheck, DoctorPhone, PhoneCheckId } from './report.js'

/** Host → boottime mappings wider than this make window edges noticeably uncertain. */
const CLOCK_WARN_NS = 10e6

/** Where a trial `am profile` writes (the collectors' default device directory). */
const DEVICE_DIR = '/data/local/tmp/vitest-energy'

type PhoneCheck = DoctorCheck<PhoneCheckId>

export async function checkPhone(device: AdbDevice, app: string | undefined): Promise<DoctorPhone> {
  const caps = await probeCapabilities(device, app === undefined ? {} : { app })
  const release = await shell(device, ['getprop', 'ro.build.version.release'])
  const releaseText = release.stdout.trim()
  const choice = autoPowerSource(caps)
  const checks: PhoneCheck[] = [
    checkAndroidVersion(caps, releaseText, release),
    checkPowerSource(caps, choice),
    checkFuelGauge(caps, choice),
    checkCharging(caps, choice),
    await checkPowerProfile(device, caps),
    ...(await checkApp(device, caps, app)),
    await checkSimpleperf(device, caps),
    await checkPerfetto(device, caps),
    await checkClock(device),
  ]
  return {
    serial: device.serial,
    ...(caps.model === '' ? {} : { model: caps.model }),
    ...(caps.sdk === 0 ? {} : { sdk: caps.sdk }),
    ...(releaseText === '' ? {} : { release: releaseText }),
    powerSource: choice.source,
    checks,
  }
}

function checkAndroidVersion(
  caps: Capabilities,
  release: string,
  releaseResult: ShellResult,
): PhoneCheck {
  const evidence = [
    ...caps.evidence.filter((e) => e.line?.includes('[ro.build.version.sdk]') === true),
    evidenceOf(releaseResult, release === '' ? undefined : release),
  ]
  const base = { id: 'android-version' as const, title: 'Android', evidence }
  const { sdk } = caps
  const name = `${release === '' ? '?' : release} (API ${sdk})`
  if (sdk === 0) {
    return {
      ...base,
      status: 'warn',
      found: 'the API level is unreadable (no ro.build.version.sdk)',
      fix: 'Check `adb shell getprop ro.build.version.sdk`.',
    }
  }
  if (sdk < 29) {
    return {
      ...base,
      status: 'warn',
      found: `${name}: older than Android 10`,
      note: 'Apps cannot be profileable by shell before Android 10, so only a debuggable build can be method-traced, and before Android 12 power rails are readable only through perfetto.',
      fix: 'Use a phone on Android 10 or later (Android 12+ for every power source).',
    }
  }
  if (sdk < 31) {
    return {
      ...base,
      status: 'pass',
      found: name,
      note:
        'Before Android 12 there is no `dumpsys powerstats`: ODPM rails (a Pixel 4 or 5 has them) are found only through a 1 s perfetto session when each worker probes the phone, and without perfetto there is no rails fallback. `<profileable android:shell="true"/>` works (API 29+).' +
        (sdk === 29
          ? " On Android 10 perfetto's daemons run only where persist.traced.enable is 1 (Pixels turn it on)."
          : ''),
    }
  }
  return { ...base, status: 'pass', found: name }
}

function railList(caps: Capabilities): string {
  return caps.odpm.rails.map((r) => r.name).join(', ')
}

function checkPowerSource(caps: Capabilities, choice: PowerSourceChoice): PhoneCheck {
  // The gauge's own evidence is under the fuel-gauge check.
  const base = { id: 'power-source' as const, title: 'power source', evidence: caps.odpm.evidence }
  const why = `${choice.reasons.join('; ')}.`
  const n = caps.odpm.rails.length
  switch (choice.source) {
    case 'odpm':
      return {
        ...base,
        status: 'pass',
        found: `ODPM rails through perfetto, ${n} rail${n === 1 ? '' : 's'}: ${railList(caps)}`,
        note: why,
      }
    case 'powerstats':
      return {
        ...base,
        status: 'pass',
        found: `ODPM rails through dumpsys (no perfetto), ${n} rail${n === 1 ? '' : 's'}: ${railList(caps)}`,
        note: why,
      }
    case 'fuel-gauge':
      if (choice.usable) {
        return {
          ...base,
          status: 'pass',
          found: `the battery fuel gauge (${caps.fuelGauge.node ?? '?'})`,
          note: `${why} Windows shorter than a few seconds are flagged W_SLOW_SENSOR.`,
        }
      }
      return {
        ...base,
        status: 'fail',
        found: `the battery fuel gauge (${caps.fuelGauge.node ?? '?'}), which this phone cannot be measured with now: ${choice.reasons.at(-1) ?? ''}`,
        note: 'Every energy window would fail at its start.',
        fix:
          caps.fuelGauge.currentUnit === 'unknown'
            ? 'Run doctor again with the phone awake (the gauge read 0).'
            : 'Take the phone off USB power (see charging below), then run doctor again.',
        code: 'E_POWER_SOURCE_UNAVAILABLE',
      }
    case 'none':
      return {
        ...base,
        status: 'fail',
        found: `none: ${why}`,
        fix: "Use another phone, or power: 'external-meter' with a meter on the battery, or power: 'batterystats' (a model from power_profile.xml, not a measurement).",
        code: 'E_POWER_SOURCE_UNAVAILABLE',
      }
  }
}

function checkFuelGauge(caps: Capabilities, choice: PowerSourceChoice): PhoneCheck {
  const gauge = caps.fuelGauge
  const base = { id: 'fuel-gauge' as const, title: 'fuel gauge', evidence: gauge.evidence }
  const used = choice.source === 'fuel-gauge'
  if (!gauge.available) {
    return used || choice.source === 'none'
      ? {
          ...base,
          status: 'fail',
          found:
            'no readable battery fuel gauge (no power_supply node of type Battery with current_now)',
          fix: 'Check `adb shell ls /sys/class/power_supply` and the nodes’ `type`.',
        }
      : {
          ...base,
          status: 'pass',
          found: `not readable (not needed: ${choice.source === 'odpm' ? 'ODPM rails are' : 'the rails are'} used)`,
        }
  }
  const raw = gauge.currentNowRaw ?? 0
  const unit =
    gauge.currentUnit === 'uA'
      ? 'in µA (kernel ABI)'
      : gauge.currentUnit === 'mA'
        ? 'in mA: a vendor quirk (the kernel ABI says µA), detected and scaled'
        : 'unit unknown (it read 0)'
  const sign =
    gauge.currentSign === 'negative-discharge'
      ? 'negative while discharging (kernel convention)'
      : gauge.currentSign === 'positive-discharge'
        ? 'positive while discharging: the vendor flipped the sign, detected and corrected'
        : 'sign unknown: read while charging, when the charger’s current hides the phone’s'
  const found = `${gauge.node ?? '?'}: current_now ${raw} ${unit}; ${sign}`
  if (used && !choice.usable) {
    return {
      ...base,
      status: 'warn',
      found,
      fix: 'Read it on battery power: the sign is judged only while the phone discharges.',
    }
  }
  return used
    ? { ...base, status: 'pass', found }
    : { ...base, status: 'pass', found: `${found} (not used: the rails are)` }
}

const STATUS_NAMES: Readonly<Record<number, string>> = {
  1: 'unknown',
  2: 'charging',
  3: 'discharging',
  4: 'not charging',
  5: 'full',
}

function checkCharging(caps: Capabilities, choice: PowerSourceChoice): PhoneCheck {
  const c = caps.charging
  const base = { id: 'charging' as const, title: 'charging', evidence: c.evidence }
  const sources = [
    ...(c.ac ? ['AC'] : []),
    ...(c.usb ? ['USB'] : []),
    ...(c.wireless ? ['wireless'] : []),
    ...(c.dock ? ['dock'] : []),
  ]
  const state = c.status === undefined ? '' : ` (${STATUS_NAMES[c.status] ?? `status ${c.status}`})`
  if (!c.powered) return { ...base, status: 'pass', found: `on battery${state}` }
  const found = `${sources.join(' and ')} powered${state}`
  if (choice.source === 'odpm' || choice.source === 'powerstats') {
    return {
      ...base,
      status: 'pass',
      found,
      note: 'Harmless here: ODPM rails sit downstream of the battery, so the charger does not show in them.',
    }
  }
  if (choice.source === 'fuel-gauge') {
    return {
      ...base,
      status: 'fail',
      found: `${found}: the fuel gauge reads the battery's net current, which shows the charger, not the app`,
      fix: 'Unplug USB power while measuring: use wireless adb (`adb tcpip 5555`, unplug, `adb connect <phone ip>:5555`) or a USB hub that cuts VBUS. `adb shell dumpsys battery unplug` is not enough: it changes only what Android believes, the hardware keeps charging.',
    }
  }
  return { ...base, status: 'pass', found }
}

async function checkApp(
  device: AdbDevice,
  caps: Capabilities,
  app: string | undefined,
): Promise<PhoneCheck[]> {
  if (app === undefined || caps.app === undefined) {
    const skipped = {
      status: 'skip' as const,
      found: 'not checked: pass --app <package>',
      evidence: [],
    }
    return [
      { id: 'app', title: 'app', ...skipped },
      { id: 'profileable', title: 'profileable', ...skipped },
    ]
  }
  const a = caps.app
  if (!a.installed) {
    let error: EnergyError | undefined
    try {
      assertProfileable(a, device.serial)
    } catch (e) {
      if (!isEnergyError(e)) throw e
      error = e
    }
    return [
      {
        id: 'app',
        title: 'app',
        status: 'fail',
        found: `${a.packageName} is not installed`,
        evidence: a.evidence,
        ...(error === undefined ? {} : { fix: error.hint, code: error.code }),
      },
      {
        id: 'profileable',
        title: 'profileable',
        status: 'skip',
        found: 'not checked: the app is not installed',
        evidence: [],
      },
    ]
  }
  const installed: PhoneCheck = {
    id: 'app',
    title: 'app',
    status: 'pass',
    found: `${a.packageName} is installed${a.versionName === undefined ? '' : `, version ${a.versionName}`}`,
    evidence: a.evidence,
  }
  return [installed, await checkProfileable(device, caps)]
}

async function checkProfileable(device: AdbDevice, caps: Capabilities): Promise<PhoneCheck> {
  const a = caps.app
  if (a === undefined) throw new Error('checkProfileable needs the probe’s app')
  // The package's flag lines (the app check shows the rest of its section).
  const flags = a.evidence.filter((e) => e.line === undefined || /flags=\[/i.test(e.line))
  const base = { id: 'profileable' as const, title: 'profileable', evidence: flags }
  const refused = notProfileable(a.packageName, device.serial)
  const no = (evidence: readonly Evidence[], how: string): PhoneCheck => ({
    ...base,
    evidence,
    status: 'warn',
    found: `neither debuggable nor profileable by shell (${how}): no per-method energy, only per-test figures`,
    fix: refused.hint,
    code: 'W_NO_EXECUTION',
  })
  if (a.debuggable) {
    return {
      ...base,
      status: 'warn',
      found: 'debuggable: methods can be traced, but a debug build runs slower and inflates energy',
      fix: 'Measure a release build with <profileable android:shell="true"/> inside <application> (API 29+).',
      code: 'W_DEBUGGABLE',
    }
  }
  if (a.profileable === 'yes') {
    return { ...base, status: 'pass', found: 'profileable by shell (named in the package flags)' }
  }
  if (a.profileable === 'no') return no(flags, `no <profileable> before Android 10`)
  const asked = await askAmProfile(device, a.packageName)
  const evidence = [...flags, ...asked.evidence]
  if (asked.answer === 'yes') {
    return {
      ...base,
      evidence,
      status: 'pass',
      found:
        'profileable by shell: am profile accepted it (dumpsys package does not show the flag)',
    }
  }
  if (asked.answer === 'no') return no(evidence, 'am profile refused it')
  return {
    ...base,
    evidence,
    status: 'warn',
    found: `unknown: dumpsys package does not show <profileable>, and ${asked.why}`,
    fix: 'Check that the manifest has <profileable android:shell="true"/> inside <application>; or open the app on the phone and run doctor again.',
  }
}

/**
 * Asks `am profile start` — the call the ART collectors make — whether it may trace the app, then
 * stops and deletes the trial trace. `am profile` needs the app's process: when it is not
 * running, the app's launcher activity is started (`am start -W`) and force-stopped afterwards,
 * as a run starts it through Appium.
 */
async function askAmProfile(
  device: AdbDevice,
  pkg: string,
): Promise<{ answer: 'yes' | 'no' | 'unknown'; why: string; evidence: Evidence[] }> {
  const evidence: Evidence[] = []
  const pid = await run(device, ['pidof', pkg])
  evidence.push(evidenceOf(pid, lineOf(pid) ?? '(not running)'))
  let started = false
  if (pid.exitCode !== 0 || lineOf(pid) === undefined) {
    const { component, result: resolved } = await resolveLauncherActivity(device, pkg)
    evidence.push(evidenceOf(resolved, component ?? lineOf(resolved)))
    if (component === undefined) {
      return {
        answer: 'unknown',
        why: 'its launcher activity could not be resolved to start it',
        evidence,
      }
    }
    const launched = await run(device, ['am', 'start', '-W', '-n', component])
    evidence.push(evidenceOf(launched, lineOf(launched, /^(Status|Error)/)))
    started = launched.exitCode === 0
    if (!started) return { answer: 'unknown', why: 'it could not be started', evidence }
  }
  try {
    await shell(device, ['mkdir', '-p', DEVICE_DIR])
    const file = `${DEVICE_DIR}/doctor-${process.pid}.trace`
    const trial = await run(device, ['am', 'profile', 'start', '--sampling', '1000', pkg, file])
    const refusal =
      lineOf(trial, /SecurityException/) ??
      lineOf(trial, /not (debuggable|profileable)/) ??
      lineOf(trial, /Exception|Error/)
    evidence.push(evidenceOf(trial, refusal ?? lineOf(trial) ?? '(accepted, no output)'))
    if (trial.exitCode === 0 && refusal === undefined) {
      await shell(device, ['am', 'profile', 'stop', pkg])
      await shell(device, ['rm', '-f', file])
      return { answer: 'yes', why: '', evidence }
    }
    await shell(device, ['rm', '-f', file])
    return /not (debuggable|profileable)/.test(refusal ?? '')
      ? { answer: 'no', why: '', evidence }
      : { answer: 'unknown', why: 'am profile failed for another reason', evidence }
  } finally {
    if (started) await shell(device, ['am', 'force-stop', pkg])
  }
}

async function checkSimpleperf(device: AdbDevice, caps: Capabilities): Promise<PhoneCheck> {
  const base = { id: 'simpleperf' as const, title: 'simpleperf' }
  if (!caps.simpleperf.available) {
    return {
      ...base,
      status: 'warn',
      found:
        'not on the phone: method attribution falls back to ART sampling (am profile --sampling)',
      evidence: caps.simpleperf.evidence,
      fix: 'Use a phone whose build has /system/bin/simpleperf (Android 9+ user builds do).',
      code: 'W_EXECUTION_FALLBACK',
    }
  }
  const version = await run(device, ['simpleperf', '--version'])
  const line = lineOf(version, /version/i) ?? lineOf(version)
  return {
    ...base,
    status: 'pass',
    found: line === undefined ? 'present (it printed no version)' : `present: ${line}`,
    evidence: [...caps.simpleperf.evidence, evidenceOf(version, line)],
  }
}

async function checkPerfetto(device: AdbDevice, caps: Capabilities): Promise<PhoneCheck> {
  const base = { id: 'perfetto' as const, title: 'perfetto' }
  if (!caps.perfetto.available) {
    return {
      ...base,
      status: 'warn',
      found: caps.odpm.available
        ? 'not on the phone: the rails are read by two dumps per window (no shape within a window), and there is no CPU schedule to split method energy by cluster'
        : 'not on the phone: no ODPM rails or CPU schedule can be recorded',
      evidence: caps.perfetto.evidence,
      fix: 'Use a phone with /system/bin/perfetto (Android 9+).',
    }
  }
  const version = await run(device, ['perfetto', '--version'])
  const line = lineOf(version, /^Perfetto/) ?? lineOf(version)
  const evidence = [...caps.perfetto.evidence, evidenceOf(version, line)]
  const found = line === undefined ? 'present' : `present: ${line}`
  if (caps.sdk > 0 && caps.sdk < 30) {
    const traced = await shell(device, ['getprop', 'persist.traced.enable'])
    const value = traced.stdout.trim()
    evidence.push(evidenceOf(traced, value === '' ? '(unset)' : value))
    if (value !== '1') {
      return {
        ...base,
        status: 'warn',
        found: `${found}, but its daemons are off (persist.traced.enable is ${value === '' ? 'unset' : value})`,
        evidence,
        fix: 'adb shell setprop persist.traced.enable 1',
      }
    }
  }
  return { ...base, status: 'pass', found, evidence }
}

async function checkClock(device: AdbDevice): Promise<PhoneCheck> {
  const base = { id: 'clock' as const, title: 'clock mapping' }
  try {
    const m = await mapDeviceClock(device, 'boottime')
    const ms = (ns: number): string => `${(ns / 1e6).toFixed(ns < 1e6 ? 2 : 1)} ms`
    const best = m.readings.reduce((a, b) =>
      b.hostAfterNs - b.hostBeforeNs < a.hostAfterNs - a.hostBeforeNs ? b : a,
    )
    const found = `host → boottime within ±${ms(m.uncertaintyNs)} (${m.method === 'intersection' ? 'intersection of' : 'best of'} ${m.readings.length} readings, round trip ${ms(m.roundTripNs)})`
    const evidence = [{ command: m.command, line: (best.deviceNs / 1e9).toFixed(2) }]
    if (m.uncertaintyNs > CLOCK_WARN_NS) {
      return {
        ...base,
        status: 'warn',
        found,
        evidence,
        note: 'Window edges on the phone’s clock are uncertain by as much.',
        fix: 'Use a USB connection (or a quieter network for wireless adb) and a less busy host.',
      }
    }
    return { ...base, status: 'pass', found, evidence }
  } catch (error) {
    if (!isEnergyError(error)) throw error
    return { ...base, ...warnedBy(error) }
  }
}
