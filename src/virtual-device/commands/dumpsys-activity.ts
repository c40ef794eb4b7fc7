/**
 * `dumpsys activity services [PACKAGE]` and `dumpsys activity processes|p [PACKAGE]`.
 *
 * services: the running services of installed helper apps, in the layout of
 * ActiveServices.dumpServicesLocked (`* ServiceRecord{… u0 pkg/.Name}` with `isForeground=`, what
 * Appium's settings helper client waits for).
 *
 * processes: the app processes the phone runs (the simulated app while it runs, the helper apps'
 * processes, and the framework's own: system_server, the launcher, GMS's persistent process), in
 * the layout of Android 13's ProcessList.dumpProcessesLSP and
 * ActivityManagerService.dumpOtherProcessesInfoLSP. ActivityManagerService.doDump passes
 * dumpAll=true for this sub-command, so it prints:
 * - the header `ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)`;
 * - `  All known processes:`, one `  *APP*|*PERS* UID <uid> ProcessRecord{<hash> <pid>:<process>/<u0aNN>}`
 *   per process (mProcessNames: an ArrayMap, so ordered by the process name's String.hashCode)
 *   followed by lines of ProcessRecord.dump / ProcessStateRecord.dump;
 * - `  Raw LRU list (dumpsys activity lru):` (ProcessList.dumpLruLocked);
 * - `  Process LRU list (sorted by oom_adj, N total, non-act at A, non-svc at S):`
 *   (ProcessList.dumpProcessOomList);
 * - `  PID mappings:` (mPidsSelfLocked, by pid), then the closing flags.
 * A PACKAGE argument keeps the processes whose package list holds it (`getPkgList().containsKey`),
 * drops the sections left empty and the global counters, as the real dump does.
 * Appium's appium-adb (`listAppProcessIds`) reads the app's pids from this dump with
 * `ProcessRecord\{[\w]+\s+(\d+):<pkg>\/`; `mobile: terminateApp` force-stops only what it finds.
 *
 * References, read for the layout (frameworks/base services/core/java/com/android/server/am/):
 * - ProcessList.java (dumpProcessesLSP, dumpLruLocked, dumpLruEntryLocked, dumpProcessOomList,
 *   makeOomAdjString): aosp-mirror/platform_frameworks_base@00dc69492890104aba55aa304492d3bb073fb24e;
 * - ActivityManagerService.java (doDump: `processes`/`p` → dumpAll=true and an optional package;
 *   dumpOtherProcessesInfoLSP: `PID mappings:` … `mForceBackgroundCheck=`), Android 13:
 *   ArrowOS-T/android_frameworks_base@e7db2d58795a28e64450d528bbf20bbff03fc79f;
 * - ProcessRecord.java (toString `ProcessRecord{<hash> <toShortString>}`, toShortString
 *   `<pid>:<process>/u<user>a<appId−10000>`, dump) and ProcessStateRecord.java (dump).
 * Not modelled: `OOM levels` / `Process OOM control` (lmkd's memory levels), `UID states`,
 * `Active instrumentation`, the ATMS section (mHomeProcess, mConfiguration…) and every timestamp.
 */
import type { HelperApps } from '../android/helper-apps.js'
import {
  HELPER_DEFAULT_UID,
  SETTINGS_PACKAGE,
  UIAUTOMATOR2_SERVER_PACKAGE,
} from '../android/helper-apps.js'
import type { ShellInvocation } from '../contract.js'
import { appUidOf } from '../sim/app-model.js'
import type { SimPhone } from '../sim/phone.js'
import { uidOf } from '../shell/commands/proc.js'
import { out } from './_util.js'

/** android.os.Process.FIRST_APPLICATION_UID. */
const FIRST_APPLICATION_UID = 10_000

/** The text after `ProcessRecord{<hash> ` (ProcessRecord.toShortString): `4321:com.example.trails/u0a187`. */
export function processShortString(pid: number, processName: string, uid: number): string {
  // User 0 only; uids below FIRST_APPLICATION_UID print as a number (`1021:system/1000`).
  const user = uid < FIRST_APPLICATION_UID ? String(uid) : `u0a${uid - FIRST_APPLICATION_UID}`
  return `${pid}:${processName}/${user}`
}

/**
 * `ProcessRecord{<identity hash> <pid>:<process>/<uid>}` (ProcessRecord.toString). The identity
 * hash stands for System.identityHashCode of the record: derived from the pid, so both
 * `dumpsys activity services` and `processes` print the same one for a process.
 */
export function processRecordString(pid: number, processName: string, uid: number): string {
  const hash = (Math.imul(pid ^ 0x5bd1e995, 2654435761) >>> 4).toString(16)
  return `ProcessRecord{${hash} ${processShortString(pid, processName, uid)}}`
}

export function dumpsysActivity(
  phone: SimPhone,
  apps: HelperApps,
  inv: ShellInvocation,
  args: readonly string[],
): number {
  const [what, filter] = args
  if (what === 'services' || what === 's') return dumpServices(apps, inv, filter)
  if (what === 'processes' || what === 'p') return dumpProcesses(phone, apps, inv, filter)
  out(
    inv,
    `ACTIVITY MANAGER ${String(what ?? '').toUpperCase()} (dumpsys activity ${what ?? ''})\n  (nothing)\n`,
  )
  return 0
}

function dumpServices(apps: HelperApps, inv: ShellInvocation, filter: string | undefined): number {
  const services = apps
    .runningServices()
    .filter(
      (s) => filter === undefined || `${s.pkg}/${s.name}`.startsWith(filter) || s.pkg === filter,
    )
  const lines = ['ACTIVITY MANAGER SERVICES (dumpsys activity services)']
  if (services.length === 0) lines.push('  (nothing)')
  else {
    lines.push('  User 0 active services:')
    for (const s of services) {
      const uid = apps.packages.get(s.pkg)?.uid ?? HELPER_DEFAULT_UID
      lines.push(
        `  * ServiceRecord{${((s.pid * 2654435761) >>> 0).toString(16)} u0 ${s.pkg}/${s.name}}`,
        `    intent={cmp=${s.pkg}/${s.name}}`,
        `    packageName=${s.pkg}`,
        `    processName=${s.pkg}`,
        `    app=${processRecordString(s.pid, s.pkg, uid)}`,
        `    isForeground=${s.foreground} foregroundId=1 types=0x00000000`,
        '    createTime=-1m2s345ms startingBgTimeout=--',
        '    lastActivity=-1m2s345ms restartTime=-1m2s345ms createdFromFg=true',
        '    startRequested=true delayedStop=false stopIfKilled=false callStart=true lastStartId=1',
        '',
      )
    }
  }
  out(inv, `${lines.join('\n')}\n`)
  return 0
}

/** ProcessList's oom_adj levels the simulated processes sit at. */
const ADJ = {
  system: -900,
  persistent: -800,
  foreground: 0,
  perceptible: 200,
  home: 600,
  previous: 700,
  cachedActivity: 905,
} as const

/** ActivityManager.PROCESS_STATE_* values and their procStateToString forms. */
const PROC_STATE = {
  persistent: [0, 'PER '],
  top: [2, 'TOP '],
  foregroundService: [4, 'FGS '],
  home: [14, 'HOME'],
  lastActivity: [15, 'LAST'],
  cachedActivity: [16, 'CAC '],
} as const satisfies Record<string, readonly [number, string]>

/** ProcessList.SCHED_GROUP_* values and the letters dumpProcessOomList prints for them. */
const SCHED_GROUP = {
  background: [0, 'b'],
  default: [2, 'F'],
  topApp: [3, 'T'],
} as const satisfies Record<string, readonly [number, string]>

/** Where a process sits in mLruProcesses: dumpLruLocked's three sections. */
type LruSection = 'activities' | 'services' | 'other'

interface ProcessEntry {
  readonly pid: number
  /** ProcessRecord.processName (`system` for system_server). */
  readonly processName: string
  readonly uid: number
  /** getPkgList(): what a PACKAGE argument matches. */
  readonly packages: readonly string[]
  readonly persistent: boolean
  readonly adj: number
  readonly procState: readonly [number, string]
  readonly schedGroup: readonly [number, string]
  /** `A` (foreground activities), `S` (foreground services) or a space. */
  readonly foreground: 'A' | 'S' | ' '
  /** printCapabilitiesSummary: location, camera, microphone, network. */
  readonly capabilities: string
  readonly adjType: string
  /** ProcessList.dumpLruEntryLocked's ` act:` flags, if any. */
  readonly act: string | undefined
  readonly lru: LruSection
  readonly apkPath: string
  readonly dataDir: string
  readonly thread: string
}

/** ProcessList.buildOomTag / makeOomAdjString (not compact) for the levels above. */
function oomAdjString(adj: number): string {
  const levels: readonly (readonly [number, string, string | null])[] = [
    [900, 'cch', '   '],
    [700, 'prev  ', null],
    [600, 'home  ', null],
    [200, 'prcp  ', null],
    [0, 'fg ', '   '],
    [-800, 'pers  ', null],
    [-900, 'sys   ', null],
  ]
  for (const [base, prefix, space] of levels) {
    if (adj < base) continue
    const diff = adj - base
    if (diff === 0) return space === null ? prefix : prefix + space
    return diff < 10 ? `${prefix}+ ${diff}` : `${prefix}+${diff}`
  }
  return String(adj)
}

/** Java's String.hashCode, as a signed 32-bit int: the order of ArrayMap's keys. */
function javaStringHash(text: string): number {
  let h = 0
  for (let i = 0; i < text.length; i++) h = (Math.imul(h, 31) + text.charCodeAt(i)) | 0
  return h
}

function hex(seed: number): string {
  return (Math.imul(seed ^ 0x2545f491, 2246822519) >>> 4).toString(16)
}

/** What a persistent framework process (`android:persistent`, OomAdjuster's `fixed`) shows. */
const PERSISTENT = {
  persistent: true,
  procState: PROC_STATE.persistent,
  schedGroup: SCHED_GROUP.default,
  foreground: ' ',
  capabilities: 'LCMN',
  adjType: 'fixed',
  act: undefined,
  lru: 'other',
} as const satisfies Partial<ProcessEntry>

/** The app processes the phone runs, in mLruProcesses order (least recently used first). */
function runningProcesses(phone: SimPhone, apps: HelperApps, inv: ShellInvocation): ProcessEntry[] {
  const packages = apps.packages
  const appOnTop = phone.appProcess !== undefined && phone.sim.currentScreen() !== undefined
  const apkOf = (pkg: string): string => packages.get(pkg)?.apkPath ?? `/data/app/${pkg}/base.apk`
  const proxy = (pid: number): string => `android.app.IApplicationThread$Stub$Proxy@${hex(pid)}`
  const other: ProcessEntry[] = []
  const services: ProcessEntry[] = []
  const activities: ProcessEntry[] = []

  // The framework's processes the process table starts with (shell/processes.ts), as `ps` shows them.
  const table = new Map(inv.device.processes.list().map((p) => [p.name, p]))
  const systemServer = table.get('system_server')
  if (systemServer !== undefined) {
    other.push({
      pid: systemServer.pid,
      processName: 'system',
      uid: 1000,
      packages: ['android', 'com.android.providers.settings', 'com.android.server.telecom'],
      ...PERSISTENT,
      adj: ADJ.system,
      apkPath: apkOf('android'),
      dataDir: '/data/system',
      thread: `android.app.ActivityThread$ApplicationThread@${hex(systemServer.pid)}`,
    })
  }
  const gms = table.get('com.google.android.gms.persistent')
  if (gms !== undefined) {
    other.push({
      pid: gms.pid,
      processName: gms.name,
      uid: uidOf(gms.user),
      packages: ['com.google.android.gms'],
      ...PERSISTENT,
      adj: ADJ.persistent,
      apkPath: apkOf('com.google.android.gms'),
      dataDir: '/data/user/0/com.google.android.gms',
      thread: proxy(gms.pid),
    })
  }

  // Helper apps' processes (installed APKs whose code is emulated or idle).
  for (const pkg of packages.list()) {
    const pid = apps.pid(pkg.name)
    if (pid === undefined || packages.isSimApp(pkg.name)) continue
    const base = {
      pid,
      processName: pkg.name,
      uid: pkg.uid,
      packages: [pkg.name],
      persistent: false,
      apkPath: pkg.apkPath,
      dataDir: `/data/user/0/${pkg.name}`,
      thread: proxy(pid),
    }
    if (pkg.name === UIAUTOMATOR2_SERVER_PACKAGE) {
      // Instrumented by `am instrument`: OomAdjuster keeps it in the foreground.
      other.push({
        ...base,
        packages: [pkg.name, `${pkg.name}.test`],
        adj: ADJ.foreground,
        procState: PROC_STATE.foregroundService,
        schedGroup: SCHED_GROUP.default,
        foreground: ' ',
        capabilities: '---N',
        adjType: 'instrumentation',
        act: undefined,
        lru: 'other',
      })
    } else if (pkg.name === SETTINGS_PACKAGE && apps.runningServices().some((s) => s.pid === pid)) {
      services.push({
        ...base,
        adj: ADJ.perceptible,
        procState: PROC_STATE.foregroundService,
        schedGroup: SCHED_GROUP.default,
        foreground: 'S',
        capabilities: '---N',
        adjType: 'fg-service',
        act: undefined,
        lru: 'services',
      })
    } else {
      activities.push({
        ...base,
        adj: ADJ.cachedActivity,
        procState: PROC_STATE.cachedActivity,
        schedGroup: SCHED_GROUP.background,
        foreground: ' ',
        capabilities: '----',
        adjType: 'cch-act',
        act: 'activities',
        lru: 'activities',
      })
    }
  }

  // The launcher and the simulated app: whichever is on top is the most recently used.
  const launcher = table.get('com.google.android.apps.nexuslauncher')
  const launcherEntry: ProcessEntry | undefined =
    launcher === undefined
      ? undefined
      : {
          pid: launcher.pid,
          processName: launcher.name,
          uid: uidOf(launcher.user),
          packages: [launcher.name],
          persistent: false,
          ...(appOnTop
            ? {
                adj: ADJ.home,
                procState: PROC_STATE.home,
                schedGroup: SCHED_GROUP.background,
                foreground: ' ',
                capabilities: '----',
                adjType: 'home',
              }
            : {
                adj: ADJ.foreground,
                procState: PROC_STATE.top,
                schedGroup: SCHED_GROUP.topApp,
                foreground: 'A',
                capabilities: 'LCMN',
                adjType: 'top-activity',
              }),
          act: 'activities|recents',
          lru: 'activities',
          apkPath: apkOf(launcher.name),
          dataDir: `/data/user/0/${launcher.name}`,
          thread: proxy(launcher.pid),
        }
  const app = phone.appProcess
  const appEntry: ProcessEntry | undefined =
    app === undefined
      ? undefined
      : {
          pid: app.pid,
          processName: phone.app.package,
          uid: appUidOf(phone.app),
          packages: [phone.app.package],
          persistent: false,
          ...(appOnTop
            ? {
                adj: ADJ.foreground,
                procState: PROC_STATE.top,
                schedGroup: SCHED_GROUP.topApp,
                foreground: 'A',
                capabilities: 'LCMN',
                adjType: 'top-activity',
              }
            : {
                adj: ADJ.previous,
                procState: PROC_STATE.lastActivity,
                schedGroup: SCHED_GROUP.background,
                foreground: ' ',
                capabilities: '----',
                adjType: 'previous',
              }),
          act: 'activities|recents',
          lru: 'activities',
          apkPath: apkOf(phone.app.package),
          dataDir: `/data/user/0/${phone.app.package}`,
          thread: proxy(app.pid),
        }
  const recent = appOnTop ? [launcherEntry, appEntry] : [appEntry, launcherEntry]
  for (const e of recent) if (e !== undefined) activities.push(e)
  return [...other, ...services, ...activities]
}

/** ProcessRecord.dump and ProcessStateRecord.dump, the lines that do not carry timestamps. */
function processDetails(p: ProcessEntry, density: string): string[] {
  const appId = p.uid % 100_000
  const gids =
    p.uid < FIRST_APPLICATION_UID
      ? '3002, 3003, 3001'
      : `${appId - FIRST_APPLICATION_UID + 50_000}, ${appId - FIRST_APPLICATION_UID + 20_000}, 9997, 3003`
  const maxAdj = p.persistent ? p.adj : 1001
  return [
    `    user #0 uid=${p.uid} gids={${gids}}`,
    '    mRequiredAbi=arm64-v8a instructionSet=null',
    `    dir=${p.apkPath} publicDir=${p.apkPath} data=${p.dataDir}`,
    `    packageList={${p.packages.join(', ')}}`,
    `    compat={${density}dpi}`,
    `    thread=${p.thread}`,
    `    pid=${p.pid}`,
    `    oom adj: max=${maxAdj} curRaw=${p.adj} setRaw=${p.adj} cur=${p.adj} set=${p.adj}`,
    `    mCurSchedGroup=${p.schedGroup[0]} setSchedGroup=${p.schedGroup[0]} systemNoUi=false`,
  ]
}

function dumpProcesses(
  phone: SimPhone,
  apps: HelperApps,
  inv: ShellInvocation,
  filter: string | undefined,
): number {
  const lru = runningProcesses(phone, apps, inv)
  const shown = (p: ProcessEntry): boolean => filter === undefined || p.packages.includes(filter)
  const density = inv.device.props.get('ro.sf.lcd_density') ?? '420'
  const lines = ['ACTIVITY MANAGER RUNNING PROCESSES (dumpsys activity processes)']
  let needSep = false

  // All known processes: mProcessNames is an ArrayMap keyed by process name (hash order), each a
  // SparseArray by uid.
  const known = lru
    .filter(shown)
    .sort(
      (a, b) =>
        javaStringHash(a.processName) - javaStringHash(b.processName) ||
        (a.processName < b.processName ? -1 : a.processName > b.processName ? 1 : 0) ||
        a.uid - b.uid,
    )
  for (const p of known) {
    if (!needSep) lines.push('  All known processes:')
    needSep = true
    lines.push(
      `  ${p.persistent ? '*PERS*' : '*APP*'} UID ${p.uid} ${processRecordString(p.pid, p.processName, p.uid)}`,
      ...processDetails(p, density),
    )
  }

  // Raw LRU list: most recent first, in the sections of mLruProcessActivityStart/ServiceStart.
  if (needSep) lines.push('')
  const short = (p: ProcessEntry): string => processShortString(p.pid, p.processName, p.uid)
  const index = (i: number): string => `#${i < 10 ? ' ' : ''}${i}`
  if (lru.some(shown)) {
    lines.push('  Raw LRU list (dumpsys activity lru):')
    const sections: readonly (readonly [LruSection, string])[] = [
      ['activities', 'Activities:'],
      ['services', 'Services:'],
      ['other', 'Other:'],
    ]
    for (const [section, title] of sections) {
      let first = true
      for (let i = lru.length - 1; i >= 0; i--) {
        const p = lru[i]
        if (p === undefined || p.lru !== section || !shown(p)) continue
        if (first) lines.push(`    ${title}`)
        first = false
        lines.push(
          `      ${index(i)}: ${oomAdjString(p.adj)} ${p.procState[1]} ${p.capabilities} ${short(p)}${
            p.act === undefined ? '' : ` act:${p.act}`
          }`,
        )
      }
    }
    needSep = true
  }

  // Process LRU list, sorted by oom_adj: the header counts every process, the rows are filtered.
  if (lru.length > 0) {
    if (needSep) lines.push('')
    const activityStart = lru.findIndex((p) => p.lru === 'activities')
    const serviceStart = lru.findIndex((p) => p.lru !== 'other')
    const nonAct = activityStart < 0 ? 0 : lru.length - activityStart
    const nonSvc = serviceStart < 0 ? 0 : lru.length - serviceStart
    lines.push(
      `  Process LRU list (sorted by oom_adj, ${lru.length} total, non-act at ${nonAct}, non-svc at ${nonSvc}):`,
    )
    const sorted = lru
      .map((p, i) => ({ p, i }))
      .filter(({ p }) => shown(p))
      .sort((a, b) => a.p.adj - b.p.adj || a.p.procState[0] - b.p.procState[0] || a.i - b.i)
    for (const { p, i } of sorted) {
      const num = lru.length - 1 - i
      lines.push(
        `    ${p.persistent ? 'PERS' : 'Proc'} ${index(num)}: ${oomAdjString(p.adj)} ${p.schedGroup[1]}/${p.foreground}/${p.procState[1]} ${p.capabilities}  t: 0 ${short(p)} (${p.adjType})`,
      )
    }
    needSep = true
  }

  // PID mappings: mPidsSelfLocked, by pid.
  const byPid = lru.filter(shown).sort((a, b) => a.pid - b.pid)
  if (byPid.length > 0) {
    if (needSep) lines.push('')
    lines.push('  PID mappings:')
    for (const p of byPid) {
      lines.push(`    PID #${p.pid}: ${processRecordString(p.pid, p.processName, p.uid)}`)
    }
  }
  if (filter === undefined) {
    lines.push(
      `  Total persistent processes: ${lru.filter((p) => p.persistent).length}`,
      '  mProcessesReady=true mSystemReady=true mBooted=true mFactoryTest=0',
      '  mBooting=false mCallFinishBooting=false mBootAnimationComplete=true',
    )
  }
  lines.push('  mForceBackgroundCheck=false')
  out(inv, `${lines.join('\n')}\n`)
  return 0
}
