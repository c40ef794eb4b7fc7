/**
 * Processes of installed apps other than the simulated one, and what the helper apps Appium's
 * UiAutomator2 driver installs do once they run on a phone:
 * - `io.appium.settings`: its launcher activity starts a foreground service (the driver waits for
 *   `isForeground=true` in `dumpsys activity services io.appium.settings`);
 * - `io.appium.uiautomator2.server.test`: `am instrument -w` of its runner starts the
 *   `io.appium.uiautomator2.server` process and its HTTP server on the phone's port 6790, which
 *   runs until the instrumentation is stopped (force-stop, or its adb shell closes).
 * Other installed apps start an idle process; their code is not simulated.
 */
import type { Duplex } from 'node:stream'
import type { VirtualDeviceHandle, VirtualProcess } from '../contract.js'
import type { SimPhone } from '../sim/phone.js'
import type { PackageRegistry } from './packages.js'
import { createUiautomator2Server, UIAUTOMATOR2_SERVER_PORT } from './uiautomator2-server.js'

export const SETTINGS_PACKAGE = 'io.appium.settings'
export const UIAUTOMATOR2_SERVER_PACKAGE = 'io.appium.uiautomator2.server'
/** The uid of a helper process whose package has none. */
export const HELPER_DEFAULT_UID = 10200

/** A running service, as `dumpsys activity services` lists it. */
export interface RunningService {
  readonly pkg: string
  /** Short class name, e.g. `.ForegroundService`. */
  readonly name: string
  readonly foreground: boolean
  readonly pid: number
}

export class HelperApps {
  private readonly processes = new Map<string, VirtualProcess>()
  private readonly services: RunningService[] = []

  constructor(
    private readonly phone: SimPhone,
    private readonly device: VirtualDeviceHandle,
    readonly packages: PackageRegistry,
  ) {}

  isRunning(pkg: string): boolean {
    return this.processes.has(pkg)
  }

  pid(pkg: string): number | undefined {
    return this.processes.get(pkg)?.pid
  }

  runningServices(): readonly RunningService[] {
    return this.services
  }

  /** Starts the package's process (if it is not running) for one of its activities. */
  startActivity(pkg: string): void {
    const process = this.spawn(pkg, () => new Promise<number>(() => undefined))
    if (pkg === SETTINGS_PACKAGE && !this.services.some((s) => s.pkg === pkg)) {
      this.services.push({ pkg, name: '.ForegroundService', foreground: true, pid: process.pid })
    }
  }

  /** `am force-stop`: the process and its services end. */
  forceStop(pkg: string): void {
    this.processes.get(pkg)?.kill('KILL')
  }

  /**
   * `am instrument -w <test pkg>/<runner>`: resolves when the instrumentation ends (killed, or
   * `signal` aborts because the shell that started it closed). Returns the text `-w` prints, or
   * undefined when the instrumentation is not installed.
   */
  async instrument(
    testPkg: string,
    runner: string,
    signal: AbortSignal,
  ): Promise<string | undefined> {
    const pkg = this.packages.get(testPkg)
    const instrumentation = pkg?.instrumentation
    if (instrumentation === undefined || instrumentation.name !== runner) return undefined
    const target = instrumentation.targetPackage
    if (target !== UIAUTOMATOR2_SERVER_PACKAGE) {
      // Tests we cannot run: the runner finds none, as an empty test APK would.
      return 'INSTRUMENTATION_RESULT: stream=\n\nTime: 0.01\n\nOK (0 tests)\n\nINSTRUMENTATION_CODE: -1\n'
    }
    const version = this.packages.get(target)?.versionName ?? ''
    // As ActivityManager's startInstrumentation: the target's running process (an earlier
    // instrumentation, another runner's UiAutomator2 server) is killed first, and its `am
    // instrument -w` ends; the new one runs in a process of its own.
    const earlier = this.processes.get(target)
    if (earlier !== undefined) {
      earlier.kill('KILL')
      await earlier.exited
    }
    const server = createUiautomator2Server(this.phone, this.device, version)
    // Runs until it is killed (force-stop) or the shell that started it closes.
    const process = this.spawn(target, () => new Promise<number>(() => undefined))
    signal.addEventListener('abort', () => process.kill('KILL'), { once: true })
    const listener = (connection: Duplex): void => server.accept(connection)
    this.device.tcpListeners.set(UIAUTOMATOR2_SERVER_PORT, listener)
    try {
      await process.exited
    } finally {
      // Unless a newer instrumentation listens there now.
      if (this.device.tcpListeners.get(UIAUTOMATOR2_SERVER_PORT) === listener) {
        this.device.tcpListeners.delete(UIAUTOMATOR2_SERVER_PORT)
      }
      server.close()
    }
    return 'INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n'
  }

  private spawn(pkg: string, body: (signal: AbortSignal) => Promise<number>): VirtualProcess {
    const running = this.processes.get(pkg)
    if (running !== undefined) return running
    const uid = this.packages.get(pkg)?.uid ?? HELPER_DEFAULT_UID
    const process = this.device.processes.spawn(
      pkg,
      (signal) =>
        new Promise<number>((resolve) => {
          signal.addEventListener('abort', () => resolve(137), { once: true })
          void body(signal).then(resolve)
        }),
      { user: `u0_a${uid - 10000}` },
    )
    this.processes.set(pkg, process)
    void process.exited.then(() => {
      if (this.processes.get(pkg) === process) this.processes.delete(pkg)
      for (let i = this.services.length - 1; i >= 0; i--) {
        if (this.services[i]?.pkg === pkg) this.services.splice(i, 1)
      }
    })
    return process
  }
}
