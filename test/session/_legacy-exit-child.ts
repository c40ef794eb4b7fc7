// A process as the Jest run has it: a signal-exit 4 loaded first (Jest's cache writes), then the
// UiAutomator2 driver's lock library (signal-exit 3), a lock held at exit. argv: lock path, then
// 'repair' to add the 'exit' listener appium-server.ts adds, 'clobber' to let signal-exit 4 drop
// signal-exit 3's hook.
import { createRequire } from 'node:module'
import { runLegacyExitHandlers } from '../../src/session/legacy-exit-hooks.js'

const [lockPath, ...flags] = process.argv.slice(2)
const require = createRequire(import.meta.url)
const fromAtomic = createRequire(require.resolve('write-file-atomic'))
const v4 = fromAtomic('signal-exit') as { onExit: (cb: () => void) => () => void }
const fromSupport = createRequire(require.resolve('@appium/support'))
const lockfile = fromSupport('lockfile') as { lockSync(path: string): void }
// The signal-exit the lock library itself loads.
const v3 = createRequire(fromSupport.resolve('lockfile'))('signal-exit') as (
  cb: () => void,
) => unknown
v3(() => process.stdout.write('signal-exit 3 handler\n'))
lockfile.lockSync(lockPath!)
if (flags.includes('clobber')) v4.onExit(() => undefined)() // its last listener goes: unload
if (flags.includes('repair')) process.once('exit', runLegacyExitHandlers)
