// The driver's port lock held at exit is removed even when a signal-exit 4 dropped signal-exit 3's
// hook (the Ctrl-C of a Jest run left `uia2_device_port_guard` in TMPDIR), and signal-exit 3's
// handlers run once, whether its hook is intact or not.
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, expect, test } from 'vitest'

const CHILD = join(import.meta.dirname, '_legacy-exit-child.ts')
let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'vitest-energy-legacy-exit-'))
})
afterEach(() => {
  rmSync(dir, { recursive: true, force: true })
})

async function run(...flags: string[]): Promise<{ lockLeft: boolean; handlerRuns: number }> {
  const lock = join(dir, 'uia2_device_port_guard')
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', CHILD, lock, ...flags],
    { env: { ...process.env, TSX_DISABLE_CACHE: '1' } },
  )
  return {
    lockLeft: existsSync(lock),
    handlerRuns: stdout.split('\n').filter((l) => l === 'signal-exit 3 handler').length,
  }
}

test('without the listener, signal-exit 4 dropping the hook leaves the lock (the bug)', async () => {
  expect(await run('clobber')).toEqual({ lockLeft: true, handlerRuns: 0 })
})

test('with the listener, the lock goes and the handlers run once', async () => {
  expect(await run('clobber', 'repair')).toEqual({ lockLeft: false, handlerRuns: 1 })
})

test('with signal-exit 3’s hook intact, the handlers still run once', async () => {
  expect(await run('repair')).toEqual({ lockLeft: false, handlerRuns: 1 })
  expect(await run()).toEqual({ lockLeft: false, handlerRuns: 1 })
})
