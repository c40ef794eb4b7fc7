/**
 * Exit handlers that another library's exit hook can silently drop, run from a plain 'exit'
 * listener.
 *
 * The UiAutomator2 driver guards its choice of a host port with a lock file in the temporary
 * folder (`uia2_device_port_guard`). Its lock library removes a lock still held at exit through
 * signal-exit 3, which hooks `process.emit`. A signal-exit 4 loaded earlier in the same process
 * (Jest's cache writes use one) puts back the `process.emit` it saw when its last listener goes,
 * and with it drops signal-exit 3's hook. A run that ends while a session starts (Ctrl-C) then
 * leaves the lock behind, and the next session on this machine waits 25 s for it.
 */

/** What signal-exit 3 keeps on `process`: its emitter, and which events it already emitted. */
interface LegacyExitEmitter {
  emitted?: Record<string, boolean>
  emit(event: string, code: number | null, signal: null): boolean
}

/**
 * Runs signal-exit 3's exit handlers unless they ran (its own hook, when intact, finds them done
 * and skips them: they run once either way). For a process 'exit' listener.
 */
export function runLegacyExitHandlers(code: number): void {
  const emitter = (process as { __signal_exit_emitter__?: LegacyExitEmitter })
    .__signal_exit_emitter__
  const emitted = emitter?.emitted
  if (emitter === undefined || emitted === undefined) return
  for (const event of ['exit', 'afterexit']) {
    if (emitted[event] === true) continue
    emitted[event] = true
    emitter.emit(event, code, null)
  }
}
