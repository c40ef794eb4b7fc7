// A verdict does not depend on which file ran before it on the phone: a real Vitest child process
// runs test/fixtures/order-project — a sync over cellular and the README's map example — in both
// orders on one virtual phone. Run after the sync (in a new test file: a new Appium session, a new
// app process), the map window still sees the cellular radio's tail; it is charged to the sync's
// method and judged apart from the map test's own energy (`carriedOverJ`).
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'
import type { MeasuredEnergyResult } from '../../src/model/index.js'
import { captured } from '../e2e/captured.js'
import { energyRunArgs, projectEnv } from './_project-env.js'

const root = fileURLToPath(new URL('../fixtures/order-project/', import.meta.url))
const vitestBin = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))

async function runInOrder(
  order: string,
): Promise<{ output: string; code: number; map: MeasuredEnergyResult }> {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-order-'))
  try {
    const { code, output } = await captured(process.execPath, [vitestBin, ...energyRunArgs(dir)], {
      cwd: root,
      env: projectEnv(dir, { ORDER: order }),
      timeoutMs: 240_000,
    })
    const report = JSON.parse(await readFile(join(dir, 'energy.json'), 'utf8')) as EnergyReport
    const map = report.tests.find((t) => t.name === 'opening the map')?.results[0]
    if (map?.status !== 'measured') throw new Error(`the map test measured nothing:\n${output}`)
    return { output, code, map }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

describe('the README map example and a cellular sync, in either order', () => {
  test('both pass; after the sync, the radio it left on is charged to it and judged apart', async () => {
    const alone = await runInOrder('map.test.ts,sync.test.ts')
    expect(alone.code, alone.output).toBe(0)
    expect(alone.map.carriedOverJ).toBeUndefined()

    const after = await runInOrder('sync.test.ts,map.test.ts')
    expect(after.code, after.output).toBe(0)
    // The phone really drew more in the map window: the cellular tail is in its gross…
    expect(after.map.grossEnergyJ - alone.map.grossEnergyJ).toBeGreaterThan(0.3)
    // …and it is the sync's, known across the two files' app processes.
    const carried = after.map.timeline?.carriedIn?.find((c) => c.component === 'cellular')
    expect(carried).toMatchObject({
      method: 'com.example.trails.SyncManager.syncAll',
      test: 'sync.test.ts › syncing over cellular',
    })
    expect(after.map.carriedOverJ).toBeCloseTo(carried!.energyJ, 9)
    // What the map test itself drew is what it draws alone, within the window-to-window spread.
    const own = (r: MeasuredEnergyResult) => (r.grossEnergyJ - (r.carriedOverJ ?? 0)) / r.durationS
    expect(Math.abs(own(after.map) - own(alone.map)) / own(alone.map)).toBeLessThan(0.1)
    expect(after.output).toContain('W_ASYNC_CARRIED_OVER')
  }, 600_000)
})
