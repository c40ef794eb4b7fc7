/**
 * The virtual device's `/system/bin/sh`: `execShell` runs one command line the way adbd runs
 * `sh -c '<line>'`, as a process (`$$`) in the device's process table.
 */
import type { ShellIo, VirtualDeviceHandle } from '../contract.js'
import { runShell } from './interpreter.js'
import type { SpawnOptions } from './processes.js'
import { withSignals, type PacedShellIo } from './streams.js'

export { runShell, SHELL_NAME, type RunShellOptions } from './interpreter.js'
export { parseShell, ShellSyntaxError } from './parse.js'
export { baseCommands } from './commands/index.js'
export { createVirtualFs, normalizePath, statMode, type MemoryFs } from './vfs.js'
export {
  createProcessTable,
  SIGNALS,
  type MemoryProcessTable,
  type ProcessInfo,
} from './processes.js'
export { VirtualDeviceShellErrors } from './errors.js'
export {
  PIPE_CAPACITY,
  pipeStats,
  resetPipeStats,
  streamingCommand,
  type PacedShellIo,
  type StreamingInvocation,
} from './streams.js'

/**
 * Runs `commandLine` on `device` (logged in `device.commandLog`); resolves with its exit status.
 * Aborting `signal` (client disconnect) stops the command and everything it started in the
 * foreground; background jobs (`&`) keep running, as they do under adbd. With a `PacedShellIo`
 * the command waits for `io.ready()` after each command it runs, as a process blocks in write(2)
 * while its reader does not read.
 */
export async function execShell(
  device: VirtualDeviceHandle,
  commandLine: string,
  io: ShellIo | PacedShellIo,
  signal: AbortSignal,
  stdin?: Uint8Array,
): Promise<number> {
  device.commandLog.push(commandLine)
  // adbd (pid 312 in the default process table) is the parent of every `adb shell`.
  const spawnOptions: SpawnOptions = { ppid: 312 }
  const process = device.processes.spawn(
    'sh',
    (procSignal) =>
      withSignals([signal, procSignal], (either) =>
        runShell(commandLine, {
          device,
          io,
          signal: either,
          pid: process.pid,
          ...(stdin === undefined ? {} : { stdin }),
        }),
      ),
    spawnOptions,
  )
  const onAbort = (): void => {
    process.kill('HUP')
  }
  signal.addEventListener('abort', onAbort, { once: true })
  try {
    return await process.exited
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
}
