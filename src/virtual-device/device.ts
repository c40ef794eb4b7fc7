/**
 * `createDevice`: one generic virtual Android device (properties, file system, process table,
 * clock, base shell commands). The simulation (`sim/`) adds its own commands and files to it; the
 * ADB server (`adb/`) serves it.
 */
import { EnergyError } from '../model/errors.js'
import { realTimeClock } from './clock.js'
import type { DeviceClock, ShellCommand, VirtualDeviceHandle } from './contract.js'
import { baseCommands } from './shell/commands/index.js'
import { VirtualDeviceShellErrors } from './shell/errors.js'
import { createProcessTable } from './shell/processes.js'
import { createVirtualFs, type MemoryFs } from './shell/vfs.js'

export interface CreateDeviceOptions {
  /** Serial as `adb devices` lists it: printable ASCII, no whitespace. */
  readonly serial: string
  /** Properties to add or override (`getprop`). Defaults describe a Pixel 6 on Android 13 (model `Pixel 6 (virtual)`). */
  readonly props?: Readonly<Record<string, string>>
  /** Device clock. @default realTimeClock() */
  readonly clock?: DeviceClock
  /** Extra files by absolute path (parents are created), as text or bytes. */
  readonly files?: Readonly<Record<string, string | Uint8Array>>
}

/**
 * The default properties (see `getprop` on a Pixel 6, Android 13), except the model, which says
 * the phone is virtual: budgets and reports are keyed by `ro.product.model`, and the virtual
 * phone's figures must never be taken for (or checked against) a real Pixel 6's.
 */
export function defaultProps(serial: string): Record<string, string> {
  return {
    'ro.product.model': 'Pixel 6 (virtual)',
    'ro.product.manufacturer': 'Google',
    'ro.product.brand': 'google',
    'ro.product.name': 'oriole',
    'ro.product.device': 'oriole',
    'ro.product.board': 'oriole',
    'ro.hardware': 'oriole',
    'ro.product.cpu.abi': 'arm64-v8a',
    'ro.product.cpu.abilist': 'arm64-v8a,armeabi-v7a,armeabi',
    'ro.build.version.sdk': '33',
    'ro.build.version.release': '13',
    'ro.build.version.security_patch': '2023-05-05',
    'ro.build.id': 'TQ2A.230505.002',
    'ro.build.type': 'user',
    'ro.build.tags': 'release-keys',
    'ro.build.fingerprint': 'google/oriole/oriole:13/TQ2A.230505.002/9891397:user/release-keys',
    'ro.serialno': serial,
    'ro.boot.serialno': serial,
    'ro.debuggable': '0',
    'ro.secure': '1',
    'sys.boot_completed': '1',
    'dev.bootcomplete': '1',
    'init.svc.adbd': 'running',
    'persist.sys.timezone': 'UTC',
  }
}

/** A command map that also lists each command as an executable in /system/bin. */
class CommandMap extends Map<string, ShellCommand> {
  private fs: MemoryFs | undefined
  attach(fs: MemoryFs): void {
    this.fs = fs
    for (const name of this.keys()) this.install(name)
  }
  override set(name: string, command: ShellCommand): this {
    super.set(name, command)
    this.install(name)
    return this
  }
  private install(name: string): void {
    if (this.fs === undefined || name.includes('/') || name === '') return
    if (this.fs.stat(`/system/bin/${name}`) === undefined) {
      this.fs.writeFile(`/system/bin/${name}`, new Uint8Array(0), 0o755)
    }
  }
}

/**
 * A nanosecond count as fs/proc/uptime.c prints it: whole seconds, a dot, and the hundredths
 * truncated (`%lu.%02lu` of `tv_sec` and `tv_nsec / 10^7`), so 100.999 s reads `100.99`.
 */
export function procHundredths(ns: number): string {
  const whole = Math.max(0, Math.floor(ns))
  const s = Math.floor(whole / 1e9)
  const cs = Math.floor((whole - s * 1e9) / 1e7)
  return `${s}.${String(cs).padStart(2, '0')}`
}

function validSerial(serial: string): boolean {
  return /^[\x21-\x7e]{1,64}$/.test(serial)
}

/** A new device with its own state. Nothing is shared between devices. */
export function createDevice(options: CreateDeviceOptions): VirtualDeviceHandle {
  const { serial } = options
  if (!validSerial(serial)) {
    throw new EnergyError({
      code: VirtualDeviceShellErrors.BAD_DEVICE_OPTION,
      message: `invalid serial ${JSON.stringify(serial)}: it must be 1-64 printable ASCII characters without spaces`,
      hint: 'Pick a serial like "vdev-0001" (adb passes it on the command line with -s).',
      details: { serial },
    })
  }
  const clock = options.clock ?? realTimeClock()
  const fs = createVirtualFs({ nowS: () => Math.floor(clock.nowNs('realtime') / 1e9) })
  for (const [dir, mode] of [
    ['/system/bin', 0o755],
    ['/system/xbin', 0o755],
    ['/vendor/bin', 0o755],
    ['/data', 0o771],
    ['/data/local', 0o751],
    ['/data/local/tmp', 0o771],
    // perfetto may only write its traces here on user builds (SELinux); shell can read them.
    ['/data/misc/perfetto-traces', 0o773],
    ['/storage/emulated/0', 0o770],
    ['/sdcard', 0o770],
    ['/dev', 0o755],
    ['/proc', 0o555],
    ['/sys/class/power_supply', 0o755],
  ] as const) {
    fs.mkdirp(dir)
    const node = fs.stat(dir)
    if (node?.kind === 'dir') node.mode = mode
  }
  fs.writeFile('/system/bin/sh', new Uint8Array(0), 0o755)
  const encoder = new TextEncoder()
  fs.defineDynamic('/proc/uptime', {
    mode: 0o444,
    read: () => {
      const upNs = clock.nowNs('boottime')
      // Eight cores, mostly idle: idle time is summed over CPUs, as the kernel does. Both figures
      // are truncated to hundredths like fs/proc/uptime.c (`%lu.%02lu`), never rounded.
      return encoder.encode(
        `${procHundredths(upNs)} ${procHundredths(Math.round(upNs * 8 * 0.93))}\n`,
      )
    },
  })
  fs.defineDynamic('/proc/version', {
    mode: 0o444,
    read: () =>
      encoder.encode(
        'Linux version 5.10.157-android13-4-00001-g5c5a4a3b8e1c-ab9627331 (build-user@build-host) (Android (8508608, based on r450784e) clang version 14.0.7) #1 SMP PREEMPT Tue Feb 14 11:08:52 UTC 2023\n',
      ),
  })
  fs.defineDynamic('/dev/null', {
    mode: 0o666,
    read: () => new Uint8Array(0),
    write: () => undefined,
  })
  for (const [path, content] of Object.entries(options.files ?? {})) {
    const dir = path.slice(0, path.lastIndexOf('/')) || '/'
    fs.mkdirp(dir)
    fs.writeFile(path, typeof content === 'string' ? encoder.encode(content) : content)
  }
  const commands = new CommandMap(baseCommands())
  commands.attach(fs)
  const props = new Map(Object.entries({ ...defaultProps(serial), ...options.props }))
  return {
    serial,
    state: 'device',
    props,
    fs,
    processes: createProcessTable(),
    clock,
    commands,
    commandLog: [],
    tcpListeners: new Map(),
  }
}
