// Watch mode in a real Vitest (in this process) on test/fixtures/reporter-project: alone, the
// energy reporter says Vitest is waiting and which file a rerun is for; beside Vitest's default
// reporter, which says both itself, it stays quiet.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { DefaultReporter, startVitest } from 'vitest/node'
import EnergyReporter from '../../reporter/index.js'
import { plainScreen } from '../../reporter/screen.js'

const root = fileURLToPath(new URL('../fixtures/reporter-project/', import.meta.url))
const file = join(root, 'energy.test.ts')
const HINT = 'Watching for file changes · press h to show help, q to quit'

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vitest-energy-watch-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** Runs the project in watch mode, reruns its file once, and returns what the reporter printed. */
async function watchAndRerun(withDefault: boolean): Promise<string> {
  let energy = ''
  let watching = 0
  const run = await startVitest(
    'test',
    [],
    {
      root,
      watch: true,
      reporters: [
        new EnergyReporter({
          screen: plainScreen,
          write: (text) => void (energy += text),
          outputFile: join(dir, 'energy.json'),
          budgets: join(dir, 'energy-budgets.json'),
          html: false,
        }),
        ...(withDefault ? [new DefaultReporter()] : []),
        // Called after the reporters before it: each run's announcement is made by then.
        { onWatcherStart: () => void watching++ },
      ],
    },
    {},
    // Vitest's own output (its default reporter's) is not what is tested here.
    { stdout: new PassThrough().resume(), stderr: new PassThrough().resume() },
  )
  try {
    await vi.waitFor(() => expect(watching).toBe(1), { timeout: 20_000 })
    // What Vite's file watcher reports when the file is saved.
    run.vite.watcher.emit('change', file)
    await vi.waitFor(() => expect(watching).toBe(2), { timeout: 20_000 })
  } finally {
    await run.close()
  }
  return energy
}

test("beside Vitest's default reporter, which says it itself, it prints neither", async () => {
  const energy = await watchAndRerun(true)
  expect(energy.split(' ENERGY ').length - 1, 'both runs reported').toBe(2)
  expect(energy).not.toContain(HINT)
  expect(energy).not.toContain('RERUN')
}, 120_000)

test('alone, it says Vitest is waiting, with the keys, after each run, and names a rerun', async () => {
  const energy = await watchAndRerun(false)
  expect(energy.split(HINT).length - 1).toBe(2)
  expect(energy).toContain('\n RERUN energy.test.ts changed\n')
  // The rerun's report follows its banner, the hint follows the report.
  const rerun = energy.indexOf(' RERUN ')
  expect(energy.indexOf(' ENERGY ', rerun)).toBeGreaterThan(rerun)
  expect(energy.lastIndexOf(HINT)).toBeGreaterThan(energy.lastIndexOf(' ENERGY '))
}, 120_000)
