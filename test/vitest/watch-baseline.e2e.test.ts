// Watch mode on the virtual device, in a real Vitest (in this process) on
// test/fixtures/energy-project (which imports `vitest-energy` by name, resolved to dist/ built by
// `npm test`'s pretest): a rerun measures the phone's idle baseline again, as a new `vitest run`
// would, instead of keeping the first run's.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, expect, test, vi } from 'vitest'
import { startVitest } from 'vitest/node'
import EnergyReporter from '../../reporter/index.js'
import type { EnergyReport } from '../../reporter/report.js'
import { plainScreen } from '../../reporter/screen.js'

const root = fileURLToPath(new URL('../fixtures/energy-project/', import.meta.url))

let dir = ''
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vitest-energy-watch-baseline-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

/** The idle power every measured window of the run's report subtracted. */
async function baselinesW(path: string): Promise<number[]> {
  const report = JSON.parse(await readFile(path, 'utf8')) as EnergyReport
  return report.tests.flatMap((t) =>
    t.results.flatMap((r) => (r.status === 'measured' ? [r.baselinePowerW] : [])),
  )
}

test('a watch-mode rerun measures the idle baseline again', async () => {
  const out = join(dir, 'energy.json')
  let runs = 0
  const vitest = await startVitest(
    'test',
    [],
    {
      root,
      watch: true,
      testNamePattern: 'idle feed, automatic window',
      reporters: [
        new EnergyReporter({
          screen: plainScreen,
          write: () => undefined,
          outputFile: out,
          budgets: join(dir, 'energy-budgets.json'),
          html: false,
        }),
        { onWatcherStart: () => void runs++ },
      ],
    },
    {},
    { stdout: new PassThrough().resume(), stderr: new PassThrough().resume() },
  )
  try {
    await vi.waitFor(() => expect(runs).toBe(1), { timeout: 120_000, interval: 200 })
    const first = await baselinesW(out)
    // What Vite's file watcher reports when a test file is saved.
    vitest.vite.watcher.emit('change', join(root, 'trails.test.ts'))
    await vi.waitFor(() => expect(runs).toBe(2), { timeout: 120_000, interval: 200 })
    const second = await baselinesW(out)
    expect(first).toHaveLength(1)
    expect(second).toHaveLength(1)
    expect(first[0]).toBeGreaterThan(0)
    expect(second[0]).toBeGreaterThan(0)
    // A measured idle level carries the sensor's noise: the same figure means it was kept.
    expect(second[0]).not.toBe(first[0])
  } finally {
    await vitest.close()
  }
}, 300_000)
