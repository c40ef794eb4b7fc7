/**
 * Starts an Appium 3 server in this process, on a free 127.0.0.1 port, with the UiAutomator2
 * driver vitest-energy depends on, the project's VirtualDevice driver (no network, no `appium
 * driver install`) and every driver the user installed in their own APPIUM_HOME.
 *
 * How Appium finds drivers: on start it reads `$APPIUM_HOME/node_modules/.cache/appium/
 * extensions.yaml`, and when that manifest is missing it scans `$APPIUM_HOME/node_modules/*` for
 * packages whose package.json has an `appium` field (`driverName`, `automationName`,
 * `platformNames`, `mainClass`). We give Appium a fresh APPIUM_HOME under the OS temp dir holding
 * one such package for our driver (its entry loads `src/virtual-device/appium-driver` from the
 * sources through tsx in a checkout, or from `dist/` when installed) plus symlinks to the user's
 * installed drivers and to the bundled UiAutomator2 driver, so Appium discovers them as installed
 * extensions. The directory is removed on close.
 */
import {
  accessSync,
  constants,
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
} from 'node:fs'
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { homedir, tmpdir } from 'node:os'
import { basename, delimiter, dirname, join } from 'node:path'
import { pathToFileURL } from 'node:url'
// adbkit must configure the Bluebird it shares with Appium's support library before Appium runs.
import '../device/_adbkit.js'
import { CommonErrors, EnergyError } from '../model/index.js'
import { AppiumDriverErrors } from '../virtual-device/appium-driver/errors.js'
import { runLegacyExitHandlers } from './legacy-exit-hooks.js'

/** Name of the generated package that carries the driver inside the temporary APPIUM_HOME. */
export const VIRTUAL_DEVICE_DRIVER_PACKAGE = 'vitest-energy-virtual-device-driver'

/** The driver's Appium name (`appium driver list`), and its automationName. */
export const VIRTUAL_DEVICE_DRIVER_NAME = 'virtual-device'
export const VIRTUAL_DEVICE_AUTOMATION_NAME = 'VirtualDevice'

/** Appium's name for the UiAutomator2 driver (`appium driver list`). */
export const UIAUTOMATOR2_DRIVER_NAME = 'uiautomator2'

/** Options of {@link startAppiumServer}. */
export interface AppiumServerOptions {
  /** TCP port on 127.0.0.1; 0 picks a free one. @default 0 */
  readonly port?: number
  /**
   * Appium's log level (`error`, `warn`, `info`, `debug`). Appium logs to stdout in this process.
   * @default 'error' (quiet), or `APPIUM_LOG_LEVEL` from the environment
   */
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug'
  /**
   * The APPIUM_HOME whose installed drivers (e.g. `uiautomator2` for real phones) are also made
   * available; `false` for none. @default what the `appium` command uses from the current
   * directory: `$APPIUM_HOME`, else the nearest package depending on appium, else `~/.appium`
   */
  readonly userAppiumHome?: string | false
  /** Only activate these drivers (Appium's `--use-drivers`). @default every driver found */
  readonly useDrivers?: readonly string[]
}

/** A running Appium server. */
export interface AppiumServer {
  /** Always `127.0.0.1`: the server binds loopback only. */
  readonly host: string
  readonly port: number
  /** `http://127.0.0.1:<port>`, for WebdriverIO's `remote()` or any W3C client. */
  readonly url: string
  /** The temporary APPIUM_HOME (removed by `close`). */
  readonly appiumHome: string
  /** Driver names Appium found, ours first (`virtual-device`, then e.g. `uiautomator2`). */
  readonly drivers: readonly string[]
  /** Stops the server and removes the temporary APPIUM_HOME. Safe to call twice. */
  close(): Promise<void>
}

interface AppiumHttpServer {
  close(): Promise<void>
  address(): { port: number } | string | null
}

interface AppiumMainModule {
  main(args: Record<string, unknown>): Promise<AppiumHttpServer | undefined>
  resolveAppiumHome(cwd: string): Promise<string>
}

function startError(message: string, hint: string, cause?: unknown): EnergyError {
  return new EnergyError({ code: AppiumDriverErrors.SERVER_START, message, hint, cause })
}

/** A free TCP port on 127.0.0.1 (asked from the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}

/** Resolves when `port` can be bound on 127.0.0.1 now; rejects with the bind error otherwise. */
function checkPortFree(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => server.close(() => resolve()))
  })
}

interface DriverPackage {
  readonly name: string
  readonly dir: string
  readonly driverName: string
}

/** Packages in `<home>/node_modules` that declare an Appium driver, as Appium's own scan does. */
export function installedDrivers(home: string): DriverPackage[] {
  const modules = join(home, 'node_modules')
  if (!existsSync(modules)) return []
  const dirs: string[] = []
  for (const entry of readdirSync(modules)) {
    if (entry.startsWith('.')) continue
    if (entry.startsWith('@')) {
      for (const sub of readdirSync(join(modules, entry))) dirs.push(join(modules, entry, sub))
    } else {
      dirs.push(join(modules, entry))
    }
  }
  const out: DriverPackage[] = []
  for (const dir of dirs) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: unknown
        appium?: { driverName?: unknown }
      }
      const driverName = pkg.appium?.driverName
      if (typeof pkg.name === 'string' && typeof driverName === 'string') {
        out.push({ name: pkg.name, dir, driverName })
      }
    } catch {
      // not a package (or unreadable): Appium skips it too
    }
  }
  return out
}

/** The JS module Appium imports to get `VirtualDeviceDriver` (written into the temporary home). */
function driverEntrySource(): string {
  const here = import.meta.url
  if (here.endsWith('.ts')) {
    // A checkout: the driver is TypeScript. Appium imports extensions natively, so load it with
    // tsx's scoped loader (tsx is a dev dependency, present in every checkout after `npm ci`).
    const driverUrl = new URL('../virtual-device/appium-driver/index.ts', here).href
    const require = createRequire(here)
    const tsxRoot = dirname(require.resolve('tsx/package.json'))
    const tsxApi = pathToFileURL(join(tsxRoot, 'dist', 'esm', 'api', 'index.mjs')).href
    return (
      `import { tsImport } from ${JSON.stringify(tsxApi)}\n` +
      `const mod = await tsImport(${JSON.stringify(driverUrl)}, import.meta.url)\n` +
      'export const VirtualDeviceDriver = mod.VirtualDeviceDriver\n'
    )
  }
  const driverUrl = new URL('../virtual-device/appium-driver/index.js', here).href
  return `export { VirtualDeviceDriver } from ${JSON.stringify(driverUrl)}\n`
}

function appiumVersion(): string {
  const require = createRequire(import.meta.url)
  const pkg = JSON.parse(readFileSync(require.resolve('appium/package.json'), 'utf8')) as {
    version: string
  }
  return pkg.version
}

/** The UiAutomator2 driver package vitest-energy depends on (undefined if it is not installed). */
function bundledUiautomator2Dir(): string | undefined {
  try {
    const require = createRequire(import.meta.url)
    return dirname(require.resolve('appium-uiautomator2-driver/package.json'))
  } catch {
    return undefined
  }
}

/** Writes the temporary APPIUM_HOME: our driver package plus links to the user's drivers. */
async function prepareHome(userHome: string | false): Promise<{ home: string; drivers: string[] }> {
  const home = await mkdtemp(join(tmpdir(), 'vitest-energy-appium-'))
  const version = appiumVersion()
  const pkgDir = join(home, 'node_modules', VIRTUAL_DEVICE_DRIVER_PACKAGE)
  await mkdir(pkgDir, { recursive: true })
  await writeFile(
    join(home, 'package.json'),
    JSON.stringify({ name: 'vitest-energy-appium-home', version: '0.0.0', private: true }, null, 2),
  )
  await writeFile(
    join(pkgDir, 'package.json'),
    JSON.stringify(
      {
        name: VIRTUAL_DEVICE_DRIVER_PACKAGE,
        version: '0.1.0',
        type: 'module',
        main: './entry.mjs',
        peerDependencies: { appium: `^${version.split('.')[0] ?? '3'}` },
        appium: {
          driverName: VIRTUAL_DEVICE_DRIVER_NAME,
          automationName: VIRTUAL_DEVICE_AUTOMATION_NAME,
          platformNames: ['Android'],
          mainClass: 'VirtualDeviceDriver',
        },
      },
      null,
      2,
    ),
  )
  await writeFile(join(pkgDir, 'entry.mjs'), driverEntrySource())
  const drivers = [VIRTUAL_DEVICE_DRIVER_NAME]
  if (userHome !== false && existsSync(userHome)) {
    for (const d of installedDrivers(userHome)) {
      if (d.name === VIRTUAL_DEVICE_DRIVER_PACKAGE || drivers.includes(d.driverName)) continue
      const link = join(home, 'node_modules', d.name)
      await mkdir(dirname(link), { recursive: true })
      await symlink(d.dir, link, 'dir')
      drivers.push(d.driverName)
    }
  }
  // The UiAutomator2 driver ships with vitest-energy, so a run needs no `appium driver install`
  // and no network; a version the user installed themselves (linked above) takes precedence.
  const uiautomator2 = bundledUiautomator2Dir()
  if (uiautomator2 !== undefined && !drivers.includes(UIAUTOMATOR2_DRIVER_NAME)) {
    await symlink(uiautomator2, join(home, 'node_modules', 'appium-uiautomator2-driver'), 'dir')
    drivers.push(UIAUTOMATOR2_DRIVER_NAME)
  }
  return { home, drivers }
}

/**
 * Appium's Android drivers find `adb` under `$ANDROID_HOME/platform-tools` and refuse to start
 * without ANDROID_HOME or ANDROID_SDK_ROOT. When neither is set and `adb` is on the PATH (Debian's
 * `adb` package, Homebrew's platform-tools), we give this process an SDK root holding only a link
 * to it, inside the temporary APPIUM_HOME. Returns a function that undoes it.
 */
async function provideSdkRoot(home: string): Promise<() => void> {
  if (process.env['ANDROID_HOME'] !== undefined || process.env['ANDROID_SDK_ROOT'] !== undefined) {
    return () => undefined
  }
  const adb = findOnPath(process.platform === 'win32' ? 'adb.exe' : 'adb')
  if (adb === undefined) return () => undefined
  const tools = join(home, 'android-sdk', 'platform-tools')
  await mkdir(tools, { recursive: true })
  await symlink(adb, join(tools, basename(adb)))
  process.env['ANDROID_HOME'] = join(home, 'android-sdk')
  return () => {
    if (process.env['ANDROID_HOME'] === join(home, 'android-sdk'))
      delete process.env['ANDROID_HOME']
  }
}

/** The APPIUM_TMP_DIR values this process set (one per running server). */
const ownTmpDirs = new Set<string>()

/**
 * Appium's drivers write temporary folders under `$APPIUM_TMP_DIR` (else the OS temp dir) and
 * remove them when the command ends; a run stopped with Ctrl-C mid-command left them in the OS
 * temp dir (e.g. the Android driver's `mock_apps.json` while a session starts). Inside the
 * temporary APPIUM_HOME they go with it. A folder the user chose is left alone.
 */
async function provideTmpDir(home: string): Promise<() => void> {
  if (process.env['APPIUM_TMP_DIR'] !== undefined && !ownTmpDirs.has(process.env['APPIUM_TMP_DIR']))
    return () => undefined
  const tmp = join(home, 'tmp')
  await mkdir(tmp, { recursive: true })
  ownTmpDirs.add(tmp)
  process.env['APPIUM_TMP_DIR'] = tmp
  return () => {
    ownTmpDirs.delete(tmp)
    if (process.env['APPIUM_TMP_DIR'] === tmp) {
      // Another server of this process still running keeps its own folder.
      const other = [...ownTmpDirs].at(-1)
      if (other === undefined) delete process.env['APPIUM_TMP_DIR']
      else process.env['APPIUM_TMP_DIR'] = other
    }
  }
}

/** Whether Appium's Android drivers will find an `adb` client (in the SDK root or on the PATH). */
export function adbClientAvailable(): boolean {
  return (
    process.env['ANDROID_HOME'] !== undefined ||
    process.env['ANDROID_SDK_ROOT'] !== undefined ||
    findOnPath(process.platform === 'win32' ? 'adb.exe' : 'adb') !== undefined
  )
}

/**
 * The driver a session uses when the user names none: UiAutomator2, as on every real phone. On the
 * virtual device of a machine without an `adb` client (UiAutomator2 cannot run there), the
 * VirtualDevice driver, which needs none, keeps the demo and a first project working.
 */
export function defaultAutomationName(virtual: boolean): string {
  return virtual && !adbClientAvailable() ? VIRTUAL_DEVICE_AUTOMATION_NAME : 'UiAutomator2'
}

/** The first executable `name` on the PATH, resolved through links. */
export function findOnPath(name: string): string | undefined {
  for (const dir of (process.env['PATH'] ?? '').split(delimiter)) {
    if (dir === '') continue
    const candidate = join(dir, name)
    try {
      accessSync(candidate, constants.X_OK)
      return realpathSync(candidate)
    } catch {
      // not here
    }
  }
  return undefined
}

/**
 * The APPIUM_HOME the `appium` command would use from the current directory: `$APPIUM_HOME`, else
 * the nearest package that depends on appium (where `appium driver install` puts drivers in a
 * project), else `~/.appium`.
 */
async function defaultAppiumHome(): Promise<string> {
  try {
    const appium = createRequire(import.meta.url)('appium') as AppiumMainModule
    return await appium.resolveAppiumHome(process.cwd())
  } catch {
    return process.env['APPIUM_HOME'] ?? join(homedir(), '.appium')
  }
}

let legacyExitHooked = false

/**
 * Starts Appium on 127.0.0.1 with the virtual device's driver and the user's installed drivers.
 * Throws `E_APPIUM_SERVER_START` when Appium cannot start.
 */
export async function startAppiumServer(options: AppiumServerOptions = {}): Promise<AppiumServer> {
  const port = options.port ?? 0
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new EnergyError({
      code: CommonErrors.INVALID_OPTION,
      message: `startAppiumServer: port ${String(port)} is not a TCP port`,
      hint: 'Give 0 (a free port) or a port between 1 and 65535.',
    })
  }
  const userHome = options.userAppiumHome ?? (await defaultAppiumHome())
  const listenPort = port === 0 ? await freePort() : port
  try {
    // Appium calls process.exit(1) when its HTTP server cannot bind, which would end the test
    // run: check the port first so a busy port is an error we can report.
    await checkPortFree(listenPort)
  } catch (cause) {
    throw startError(
      `port ${listenPort} on 127.0.0.1 is not available (${(cause as NodeJS.ErrnoException).code ?? String(cause)})`,
      'Pass port: 0 for a free port, or stop what listens there.',
      cause,
    )
  }
  const { home, drivers } = await prepareHome(userHome)
  const restoreSdkRoot = await provideSdkRoot(home)
  const restoreTmp = await provideTmpDir(home)
  const restore = (): void => {
    restoreSdkRoot()
    restoreTmp()
  }
  const logLevel = options.logLevel ?? process.env['APPIUM_LOG_LEVEL'] ?? 'error'
  let server: AppiumHttpServer | undefined
  try {
    const require = createRequire(import.meta.url)
    const appium = require('appium') as AppiumMainModule
    server = await appium.main({
      subcommand: 'server',
      address: '127.0.0.1',
      port: listenPort,
      appiumHome: home,
      loglevel: logLevel,
      logNoColors: true,
      throwInsteadOfExit: true,
      // Lets close() list the sessions a worker left open and end them (GET /appium/sessions);
      // the server binds loopback only.
      allowInsecure: ['*:session_discovery'],
      ...(options.useDrivers === undefined ? {} : { useDrivers: [...options.useDrivers] }),
    })
  } catch (cause) {
    restore()
    await rm(home, { recursive: true, force: true })
    throw startError(
      `Appium did not start: ${cause instanceof Error ? cause.message : String(cause)}`,
      'Run with APPIUM_LOG_LEVEL=debug to see Appium’s log; check that the port is free.',
      cause,
    )
  }
  const address = server?.address()
  if (server === undefined || typeof address !== 'object' || address === null) {
    restore()
    await rm(home, { recursive: true, force: true })
    throw startError(
      'Appium returned no listening server',
      'Run with APPIUM_LOG_LEVEL=debug to see why Appium did not start a server.',
    )
  }
  const running = server
  // Ctrl-C ends the process without `close()`: the temporary APPIUM_HOME must not stay behind.
  const removeHome = (): void => rmSync(home, { recursive: true, force: true })
  process.once('exit', removeHome)
  // For the life of the process: a session Appium was starting when the run ended may hold the
  // driver's port lock at exit.
  if (!legacyExitHooked) process.once('exit', runLegacyExitHandlers)
  legacyExitHooked = true
  let closed: Promise<void> | undefined
  return {
    host: '127.0.0.1',
    port: address.port,
    url: `http://127.0.0.1:${address.port}`,
    appiumHome: home,
    drivers,
    close() {
      closed ??= (async () => {
        try {
          await endSessions(`http://127.0.0.1:${address.port}`)
          await running.close()
        } finally {
          restore()
          process.off('exit', removeHome)
          await rm(home, { recursive: true, force: true })
        }
      })()
      return closed
    },
  }
}

/**
 * Ends the sessions still open on the server. A session whose worker ended without deleting it
 * (a worker killed at the end of the run) keeps Appium's new-command timer running, which keeps
 * the whole test process alive for a minute after the run ("close timed out"). Best effort.
 */
async function endSessions(url: string): Promise<void> {
  const signal = AbortSignal.timeout(5000)
  try {
    const listed = (await (await fetch(`${url}/appium/sessions`, { signal })).json()) as {
      value?: { id?: unknown }[]
    }
    const ids = (listed.value ?? []).map((s) => s.id).filter((id) => typeof id === 'string')
    await Promise.all(
      ids.map((id) =>
        fetch(`${url}/session/${id}`, { method: 'DELETE', signal }).catch(() => undefined),
      ),
    )
  } catch {
    // the server is already gone or does not list sessions: nothing to end
  }
}
