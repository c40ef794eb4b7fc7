/**
 * `am start [-W] [-S] -n <component>`, `am force-stop <package>`,
 * `am profile start [--sampling N] [--streaming] <PROCESS> <FILE>` / `am profile stop [<PROCESS>]`.
 * Output and failures follow ActivityManagerShellCommand (Android 13): `Starting: Intent { cmp=… }`,
 * the `-W` block, `Error type 3` for a missing activity, and the SecurityException a release
 * build throws when the app is neither debuggable nor profileable by shell.
 */
import type { HelperApps } from '../android/helper-apps.js'
import type { ShellCommand, ShellInvocation, VirtualDeviceHandle } from '../contract.js'
import { appUidOf, qualifyActivity } from '../sim/app-model.js'
import { buildArtProfile } from '../sim/art-profile.js'
import { bootNowNs, type ArtProfileSession, type SimPhone } from '../sim/phone.js'
import { err, intArg, javaException, out } from './_util.js'

const USAGE = `Activity manager (activity) commands:
  start [-W] [-S] [--start-profiler <FILE> [--sampling INTERVAL] [--streaming]] -n <COMPONENT>
  force-stop <PACKAGE>
  instrument [-w] [-r] [-e <NAME> <VALUE>] [--no-window-animation] <COMPONENT>
  profile start [--sampling INTERVAL | --streaming] [--clock-type dual|wall|thread-cpu] <PROCESS> <FILE>
  profile stop [<PROCESS>]
`

/** Cold-start cost of forking the zygote and binding the application, ms (documented constant). */
const COLD_START_OVERHEAD_MS = 180
const WARM_START_OVERHEAD_MS = 40

/** `u0_a187` for uid 10187. */
export function appUser(uid: number): string {
  return `u0_a${uid - 10000}`
}

export function amCommand(phone: SimPhone, apps: HelperApps): ShellCommand {
  return async (inv) => {
    const [, sub, ...args] = inv.argv
    switch (sub) {
      case 'start':
      case 'start-activity':
        return start(phone, apps, inv, args)
      case 'force-stop':
        return forceStop(phone, apps, args)
      case 'instrument':
        return instrument(apps, inv, args)
      case 'profile':
        return profile(phone, inv, args)
      case undefined:
      case 'help':
        out(inv, USAGE)
        return 0
      default:
        err(inv, `Unknown command: ${sub}\n`)
        return 255
    }
  }
}

/** Starts the app process (if needed) and tells the simulation. Returns the launch kind. */
export function launchApp(
  phone: SimPhone,
  device: VirtualDeviceHandle,
  screenId: string | undefined,
): 'COLD' | 'WARM' | 'HOT' {
  const { sim, app } = phone
  if (phone.appProcess !== undefined) {
    if (
      sim.currentScreenId !== undefined &&
      (screenId === undefined || screenId === sim.currentScreenId)
    ) {
      return 'HOT'
    }
    sim.resume(screenId)
    return 'WARM'
  }
  const process = device.processes.spawn(
    app.package,
    (signal) =>
      new Promise<number>((resolve) => {
        signal.addEventListener(
          'abort',
          () => {
            if (phone.appProcess?.pid === process.pid) {
              phone.sim.forceStop()
              phone.appProcess = undefined
              phone.artProfile = undefined
            }
            resolve(137)
          },
          { once: true },
        )
      }),
    { user: appUser(appUidOf(app)) },
  )
  phone.appProcess = process
  sim.launch(process.pid, screenId)
  return 'COLD'
}

/** Stops the app like `am force-stop`. */
export function stopApp(phone: SimPhone): void {
  const process = phone.appProcess
  if (process === undefined) return
  phone.sim.forceStop()
  phone.appProcess = undefined
  phone.artProfile = undefined
  process.kill('KILL')
}

async function start(
  phone: SimPhone,
  apps: HelperApps,
  inv: ShellInvocation,
  args: readonly string[],
): Promise<number> {
  let action: string | undefined
  const categories: string[] = []
  let wait = false
  let stopFirst = false
  let component: string | undefined
  let profileFile: string | undefined
  let samplingUs: number | undefined
  let streaming = false
  for (let i = 0; i < args.length; i++) {
    const a = args[i]
    if (a === '-W') wait = true
    else if (a === '-S') stopFirst = true
    else if (a === '--start-profiler' || a === '-P') profileFile = args[++i]
    else if (a === '--sampling') samplingUs = intArg(args[++i])
    else if (a === '--streaming') streaming = true
    else if (a === '-n') component = args[++i]
    else if (a === '-a') action = args[++i]
    else if (a === '-c') categories.push(args[++i] ?? '')
    else if (a === '-d' || a === '-t' || a === '-f' || a === '--user') i++
    else if (a !== undefined && a.includes('/') && !a.startsWith('-')) component = a
  }
  if (component === undefined) {
    err(inv, 'Error: Intent does not match any activities: Intent { }\n')
    return 255
  }
  const intent = [
    ...(action === undefined ? [] : [`act=${action}`]),
    ...(categories.length === 0 ? [] : [`cat=[${categories.join(',')}]`]),
    `cmp=${component}`,
  ].join(' ')
  out(inv, `Starting: Intent { ${intent} }\n`)
  const [pkg = '', activity = ''] = component.split('/')
  const qualified = qualifyActivity(pkg, activity)
  if (pkg !== phone.app.package) {
    const installed = apps.packages.get(pkg)
    if (installed === undefined || !installed.activities.includes(qualified)) {
      err(inv, `Error type 3\nError: Activity class {${pkg}/${qualified}} does not exist.\n`)
      return 255
    }
    if (stopFirst) apps.forceStop(pkg)
    apps.startActivity(pkg)
    if (wait)
      out(
        inv,
        `Status: ok\nLaunchState: COLD\nActivity: ${component}\nTotalTime: 120\nWaitTime: 123\nComplete\n`,
      )
    return 0
  }
  const screen =
    pkg === phone.app.package
      ? phone.app.screens.find((s) => qualifyActivity(pkg, s.activity) === qualified)
      : undefined
  const launcher = qualifyActivity(phone.app.package, phone.app.launcherActivity)
  if (screen === undefined && qualified !== launcher) {
    err(inv, `Error type 3\nError: Activity class {${pkg}/${qualified}} does not exist.\n`)
    return 255
  }
  const t0 = bootNowNs(phone)
  if (stopFirst) stopApp(phone)
  // --start-profiler / -P: trace from process start; silently ignored when the app is neither
  // debuggable nor profileable, or already running (as on a phone).
  const profiling =
    profileFile !== undefined &&
    phone.appProcess === undefined &&
    phone.artProfile === undefined &&
    (phone.app.debuggable || phone.app.profileable)
  if (profiling && samplingUs === undefined) phone.sim.setTracing(phone.tracingOverhead)
  const kind = launchApp(phone, inv.device, qualified === launcher ? undefined : screen?.id)
  const pid = phone.appProcess?.pid
  if (profiling && profileFile !== undefined && pid !== undefined) {
    inv.device.fs.writeFile(profileFile, new Uint8Array(0), 0o666)
    phone.artProfile = { startNs: t0, file: profileFile, pid, samplingUs, streaming, clock: 'dual' }
  }
  if (kind === 'HOT') {
    out(
      inv,
      'Warning: Activity not started, intent has been delivered to currently running top-most instance.\n',
    )
  }
  if (!wait) return 0
  const overheadMs =
    kind === 'COLD' ? COLD_START_OVERHEAD_MS : kind === 'WARM' ? WARM_START_OVERHEAD_MS : 0
  const doneNs = Math.max(phone.sim.threadIdleAtNs('main'), t0) + overheadMs * 1e6
  const waitNs = doneNs - bootNowNs(phone)
  if (waitNs > 0) await phone.clock.sleep(waitNs, inv.signal)
  const totalMs = Math.round((doneNs - t0) / 1e6)
  out(
    inv,
    [
      kind === 'HOT' ? 'Status: ok' : 'Status: ok',
      `LaunchState: ${kind === 'HOT' ? 'UNKNOWN (0)' : kind}`,
      `Activity: ${component}`,
      ...(kind === 'HOT' ? [] : [`TotalTime: ${totalMs}`]),
      `WaitTime: ${totalMs + 3}`,
      'Complete',
      '',
    ].join('\n'),
  )
  return 0
}

function forceStop(phone: SimPhone, apps: HelperApps, args: readonly string[]): number {
  const pkg = args.filter((a) => !a.startsWith('-')).at(-1)
  if (pkg === phone.app.package) stopApp(phone)
  else if (pkg !== undefined) apps.forceStop(pkg)
  return 0
}

/**
 * `am instrument [-w] [-r] [-e NAME VALUE]… [--no-window-animation] PKG/RUNNER`: with `-w` it
 * runs as long as the instrumentation does (the UiAutomator2 server: until it is stopped).
 */
async function instrument(
  apps: HelperApps,
  inv: ShellInvocation,
  args: readonly string[],
): Promise<number> {
  let wait = false
  let component: string | undefined
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? ''
    if (a === '-w') wait = true
    else if (a === '-e') i += 2
    else if (a === '--user' || a === '-p' || a === '--abi') i++
    else if (!a.startsWith('-')) component = a
  }
  const [testPkg = '', runner = ''] = (component ?? '').split('/')
  const qualified = qualifyActivity(testPkg, runner)
  if (apps.packages.get(testPkg)?.instrumentation?.name !== qualified) {
    return notInstrumented(inv, component ?? '')
  }
  // Without -w, am returns once the instrumentation started (it then outlives the shell).
  const running = apps.instrument(
    testPkg,
    qualified,
    wait ? inv.signal : new AbortController().signal,
  )
  if (!wait) {
    void running.catch(() => undefined)
    return 0
  }
  out(inv, (await running) ?? '')
  return 0
}

function notInstrumented(inv: ShellInvocation, component: string): number {
  const [pkg = '', runner = ''] = component.split('/')
  err(
    inv,
    `INSTRUMENTATION_STATUS: id=ActivityManagerService\nINSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: ComponentInfo{${pkg}/${qualifyActivity(pkg, runner)}}\nINSTRUMENTATION_STATUS_CODE: -1\nandroid.util.AndroidException: INSTRUMENTATION_FAILED: ${pkg}/${qualifyActivity(pkg, runner)}\n`,
  )
  return 1
}

async function profile(
  phone: SimPhone,
  inv: ShellInvocation,
  args: readonly string[],
): Promise<number> {
  const [verb, ...rest] = args
  let samplingUs: number | undefined
  let streaming = false
  let clock: 'dual' | 'wall' | 'thread-cpu' = 'dual'
  const operands: string[] = []
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i]
    if (a === '--sampling') {
      samplingUs = intArg(rest[++i])
      if (samplingUs === undefined || samplingUs <= 0) {
        err(inv, `Error: invalid sampling interval: ${rest[i] ?? ''}\n`)
        return 255
      }
    } else if (a === '--clock-type') {
      const value = rest[++i]
      if (value !== 'dual' && value !== 'wall' && value !== 'thread-cpu') {
        err(inv, `Error: invalid clock type: ${value ?? ''}\n`)
        return 255
      }
      clock = value
    } else if (a === '--streaming') streaming = true
    else if (a === '--user') i++
    else if (a !== undefined) operands.push(a)
  }
  if (verb === 'start') {
    const [processName, file] = operands
    if (processName === undefined || file === undefined) {
      err(inv, 'Error: no profile file path specified\n')
      return 255
    }
    return profileStart(phone, inv, processName, file, { samplingUs, streaming, clock })
  }
  if (verb === 'stop') return profileStop(phone, inv, operands[0])
  err(inv, `Error: profile must be start or stop: ${verb ?? ''}\n`)
  return 255
}

function resolveProcess(phone: SimPhone, name: string): number | undefined {
  const pid = phone.appProcess?.pid
  if (pid === undefined) return undefined
  return name === phone.app.package || name === String(pid) ? pid : undefined
}

function profileStart(
  phone: SimPhone,
  inv: ShellInvocation,
  processName: string,
  file: string,
  mode: Pick<ArtProfileSession, 'samplingUs' | 'streaming' | 'clock'>,
): number {
  const pid = resolveProcess(phone, processName)
  if (pid === undefined) {
    return javaException(
      inv,
      'profile',
      'java.lang.IllegalArgumentException',
      `Unknown process: ${processName}`,
      'com.android.server.am.ActivityManagerService.profileControl(ActivityManagerService.java:16942)',
    )
  }
  if (!phone.app.debuggable && !phone.app.profileable) {
    return javaException(
      inv,
      'profile',
      'java.lang.SecurityException',
      `Process not debuggable, and not profileable by shell: ${phone.app.package}`,
      'com.android.server.am.ActivityManagerService.enforceDebuggable(ActivityManagerService.java:16877)',
    )
  }
  if (phone.artProfile !== undefined) {
    return javaException(
      inv,
      'profile',
      'java.lang.IllegalStateException',
      'Profiling is already running',
      'com.android.server.am.ActivityManagerService.profileControl(ActivityManagerService.java:16960)',
    )
  }
  if (!file.startsWith('/data/local/tmp/') && !file.startsWith('/sdcard/')) {
    err(inv, `Error: Unable to open file: ${file}\nConsider using a file under /data/local/tmp/\n`)
    return 255
  }
  inv.device.fs.writeFile(file, new Uint8Array(0), 0o666)
  phone.artProfile = { startNs: bootNowNs(phone), file, pid, ...mode }
  // Full tracing deoptimizes the app; the sampling profiler leaves compiled code alone.
  if (mode.samplingUs === undefined) phone.sim.setTracing(phone.tracingOverhead)
  return 0
}

function profileStop(
  phone: SimPhone,
  inv: ShellInvocation,
  processName: string | undefined,
): number {
  const session = phone.artProfile
  if (processName !== undefined && resolveProcess(phone, processName) === undefined) {
    return javaException(
      inv,
      'profile',
      'java.lang.IllegalArgumentException',
      `Unknown process: ${processName}`,
      'com.android.server.am.ActivityManagerService.profileControl(ActivityManagerService.java:16942)',
    )
  }
  if (session === undefined) return 0
  phone.artProfile = undefined
  phone.sim.setTracing(undefined)
  const stopNs = bootNowNs(phone)
  const result = buildArtProfile(phone.sim, {
    pid: session.pid,
    startNs: session.startNs,
    stopNs,
    monotonicOffsetNs: phone.clock.nowNs('monotonic') - phone.clock.nowNs('boottime'),
    ...(session.samplingUs === undefined ? {} : { samplingUs: session.samplingUs }),
    streaming: session.streaming,
    clock: session.clock,
    bufferBytes: phone.traceBufferBytes,
  })
  phone.lastArtProfile = result
  inv.device.fs.writeFile(session.file, result.bytes, 0o666)
  return 0
}
