/**
 * toybox's `taskset` and `yes`: what a calibration uses to keep chosen CPUs busy while the fuel
 * gauge watches (`taskset 10 yes > /dev/null &`, later `kill`). Reference: toybox
 * toys/other/taskset.c and toys/other/yes.c. On a phone with a simulation `yes` is a thread busy all
 * the time on its CPUs (the device's `CpuHost`); its output, when not discarded, is written lazily.
 */
import type { ShellCommand, VirtualDeviceHandle } from '../../contract.js'
import {
  collect,
  streamingBody,
  streamingCommand,
  STDIN_COLLECT_MAX,
  type StreamingInvocation,
} from '../streams.js'
import { baseName, complain, parseFlags, resolve } from './_util.js'

/** The CPUs of a device without a simulation (the base device's /proc/uptime counts eight). */
const BARE_DEVICE_CPUS = [0, 1, 2, 3, 4, 5, 6, 7]
/** Most CPUs a mask may name (the kernel's NR_CPUS on arm64 Android kernels). */
const MAX_CPUS = 1024

function cpusOf(device: VirtualDeviceHandle): readonly number[] {
  return device.cpu?.cpus ?? BARE_DEVICE_CPUS
}

/** The CPUs `pid` may run on: its affinity, else every CPU of the phone. */
export function allowedCpus(device: VirtualDeviceHandle, pid: number): readonly number[] {
  return device.processes.affinity(pid) ?? cpusOf(device)
}

/**
 * A hex mask as toybox reads it (no `0x`, any length, digits from the right): the CPUs it names,
 * or `undefined` for a character that is not a hex digit.
 */
export function parseCpuMask(text: string): number[] | undefined {
  const cpus: number[] = []
  for (let j = 0; j < text.length; j++) {
    const digit = Number.parseInt(text[text.length - 1 - j] ?? '', 16)
    if (Number.isNaN(digit)) return undefined
    for (let bit = 0; bit < 4; bit++) {
      const cpu = 4 * j + bit
      if ((digit & (1 << bit)) !== 0 && cpu < MAX_CPUS) cpus.push(cpu)
    }
  }
  return cpus
}

/** A CPU set as `sched_getaffinity`'s mask in hex, as toybox prints it (`f0`). */
export function formatCpuMask(cpus: readonly number[]): string {
  let mask = 0n
  for (const cpu of cpus) mask |= 1n << BigInt(cpu)
  return mask.toString(16)
}

/** Runs `argv` in the calling process, as `execvp` (toybox `xexec`): the process takes its name. */
async function execInPlace(inv: StreamingInvocation, argv: readonly string[]): Promise<number> {
  const [name = ''] = argv
  const command = name.includes('/')
    ? inv.device.fs.stat(resolve(inv, name)) === undefined
      ? undefined
      : inv.device.commands.get(baseName(name))
    : inv.device.commands.get(name)
  if (command === undefined) {
    complain(inv, `exec ${name}: No such file or directory`)
    return 127
  }
  if (inv.pid !== undefined) inv.device.processes.rename(inv.pid, baseName(name))
  const next = { ...inv, argv }
  const streaming = streamingBody(command)
  if (streaming !== undefined) return streaming(next)
  // A command that takes its stdin as one buffer gets it once its writer is done (or at the cap).
  const stdin = await collect({ read: () => inv.read() }, STDIN_COLLECT_MAX, inv.signal)
  return command({ ...next, stdin })
}

/**
 * `taskset [-ap] [mask] [PID | cmd [args...]]`: with a command, runs it (in place) on the CPUs of
 * `mask`; with `-p`, prints a process's mask (`pid N's current affinity mask: ff`) and with a
 * mask sets it (`pid N's new affinity mask: 10`). `-a` (all threads of PID) acts on the process:
 * the shell's processes have one thread. A mask with no CPU of the phone is EINVAL, another
 * user's process EPERM, as the kernel answers `sched_setaffinity`.
 */
export const taskset: ShellCommand = streamingCommand(async (inv) => {
  // Options only before the first operand (toybox's `^`): a command's own flags are its own.
  const { flags, operands, bad } = parseFlags(inv.argv.slice(1), 'pa')
  if (bad !== undefined) {
    complain(inv, `Unknown option '${bad}'`)
    return 1
  }
  const byPid = flags.size > 0
  if (operands.length === 0) {
    complain(inv, 'Need 1 argument')
    return 1
  }
  const phone = cpusOf(inv.device)
  /** The mask's CPUs the phone has, or an error printed (and `undefined`). */
  const maskOf = (pid: number): number[] | undefined => {
    const text = operands[0] ?? ''
    const cpus = parseCpuMask(text)
    if (cpus === undefined) {
      complain(inv, `bad mask '${text}'`)
      return undefined
    }
    const valid = cpus.filter((c) => phone.includes(c))
    if (valid.length === 0) {
      complain(inv, `failed to set pid ${pid}'s affinity: Invalid argument`)
      return undefined
    }
    return valid
  }
  if (!byPid) {
    if (operands.length < 2) {
      complain(inv, 'Needs 2 args')
      return 1
    }
    const self = inv.pid ?? 0
    const cpus = maskOf(self)
    if (cpus === undefined) return 1
    if (inv.pid !== undefined) inv.device.processes.setAffinity(inv.pid, cpus)
    return execInPlace(inv, operands.slice(1))
  }
  const last = operands[operands.length - 1] ?? ''
  if (!/^-?\d+$/.test(last)) {
    complain(inv, `Not int ${last}`)
    return 1
  }
  const pid = Number(last)
  const target = inv.device.processes.get(pid)
  if (target === undefined) {
    complain(inv, `failed to get pid ${pid}'s affinity: No such process`)
    return 1
  }
  inv.io.write(
    `pid ${pid}'s current affinity mask: ${formatCpuMask(allowedCpus(inv.device, pid))}\n`,
  )
  if (operands.length < 2) return 0
  const cpus = maskOf(pid)
  if (cpus === undefined) return 1
  // Only the shell's own processes: another user's need CAP_SYS_NICE.
  if (target.user !== 'shell') {
    complain(inv, `failed to set pid ${pid}'s affinity: Operation not permitted`)
    return 1
  }
  inv.device.processes.setAffinity(pid, cpus)
  inv.io.write(`pid ${pid}'s new affinity mask: ${formatCpuMask(allowedCpus(inv.device, pid))}\n`)
  return 0
})

/** Bytes of `y\n` lines written at a time when the output is not discarded. */
const YES_CHUNK_BYTES = 64 * 1024
/**
 * Most a `yes` writes (the most the device keeps of one stream, as for stdin): past it, it writes
 * nothing more — as a writer whose reader stopped reading — but stays until killed.
 */
const YES_OUTPUT_MAX = STDIN_COLLECT_MAX

/** Resolves when `signal` aborts. */
function untilKilled(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve()
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }))
}

/**
 * `yes [STRING...]`: its arguments (`y` without) line after line until killed. The process is
 * busy on a CPU all the while (the device's `CpuHost`: one core of its affinity at a time); with
 * its stdout discarded (`> /dev/null`) it writes nothing, else it writes lazily, waiting for its
 * reader and for a turn of the host's event loop after each chunk, never more than 8 MiB.
 */
export const yes: ShellCommand = streamingCommand(async (inv) => {
  const { pid, signal } = inv
  const name = pid === undefined ? undefined : inv.device.processes.get(pid)?.name
  const busy =
    pid === undefined || inv.device.cpu === undefined
      ? undefined
      : inv.device.cpu.spin(
          { pid, name: name ?? 'yes', comm: baseName(name ?? 'yes').slice(0, 15) },
          () => allowedCpus(inv.device, pid),
        )
  try {
    if (inv.stdoutDiscarded !== true) {
      const words = inv.argv.slice(1)
      const line = `${words.length === 0 ? 'y' : words.join(' ')}\n`
      const chunk = new TextEncoder().encode(
        line.repeat(Math.max(1, Math.floor(YES_CHUNK_BYTES / Math.max(1, line.length)))),
      )
      for (let written = 0; !signal.aborted && written < YES_OUTPUT_MAX; written += chunk.length) {
        inv.io.write(chunk)
        await inv.drained()
        // A reader that never pushes back (a file) must not keep the host's event loop busy.
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
    }
    await untilKilled(signal)
  } finally {
    busy?.stop()
  }
  return 130
})
