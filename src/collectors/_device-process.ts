/**
 * How a collector ends what it started on the phone: the one process it started, by pid (never
 * by name: another window's recorder on the same phone must keep running), and its window's
 * files, removed whatever happened to the window.
 */
import { DeviceErrors, quoteShellArg, shell, shellScript } from '../device/index.js'
import { isEnergyError } from '../model/index.js'
import type { CollectorContext } from './types.js'

/** The process id a command printed on its first line (`echo $$; exec …`). */
export const PID_LINE = /^\s*(\d+)\r?\n/

/**
 * Sends SIGINT or SIGTERM to `pid` and waits in one shell until it has exited (one round trip
 * instead of a `kill -0` each time); after `timeoutMs` it is sent SIGKILL, and the result is false.
 */
export async function endProcess(
  context: CollectorContext,
  pid: string,
  signal: 'INT' | 'TERM',
  timeoutMs: number,
): Promise<boolean> {
  const p = quoteShellArg(pid)
  try {
    await shellScript(
      context.device,
      `kill -${signal} ${p}; while kill -0 ${p} 2>/dev/null; do sleep 0.005; done`,
      { signal: AbortSignal.timeout(timeoutMs) },
    )
    return true
  } catch (error) {
    if (!isEnergyError(error) || error.code !== DeviceErrors.ABORTED) throw error
    await killProcess(context, pid)
    return false
  }
}

/** SIGKILL to `pid`, best effort (the process may be gone already). */
export async function killProcess(context: CollectorContext, pid: string): Promise<void> {
  await shell(context.device, ['kill', '-KILL', pid]).catch(() => undefined)
}

/**
 * Removes a window's files from the phone. Best effort: it never throws, so a failure here never
 * hides the error that ended the window.
 */
export async function removeFiles(
  context: CollectorContext,
  paths: readonly string[],
): Promise<void> {
  if (paths.length === 0) return
  await shell(context.device, ['rm', '-f', ...paths]).catch(() => undefined)
}
