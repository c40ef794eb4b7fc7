// Export: GpxExporter acquires a wake lock and never releases it (a deliberate bug). With the
// screen on nobody notices; once the screen goes off the CPU can no longer suspend — energy the
// app's own samples cannot see, because no app code is running.
import { expect, test } from 'vitest-energy'
import { energyBug } from './energy-bug.js'
import { freshAppPerTest } from './fresh-app.js'

freshAppPerTest()

test('exporting a track', async ({ driver, energy }) => {
  await driver.$('~export').click()
  const run = await energy.measure(async () => {
    await driver.$('~export-gpx').click()
    await driver.pause(1500)
  })
  expect(run).toConsumeLessThan(5)
  expect(run.method('GpxExporter.export')).toConsumeLessThan(1)
})

// Deliberate bug: with the screen off the phone should sleep; the export's wake lock keeps it up.
energyBug(
  'the phone sleeps after an export (fails: wake lock never released)',
  async ({ driver, energy }) => {
    await driver.$('~export').click()
    await driver.$('~export-gpx').click()
    await driver.execute('mobile: pressKey', { keycode: 223 }) // screen off
    try {
      const asleep = await energy.measure(() => driver.pause(3000), { label: 'screen off' })
      // Asleep, this phone draws ~40 mW; held awake by a wake lock, ~150 mW.
      expect(asleep).toDrawLessThan(0.1, { scope: 'gross' })
    } finally {
      await driver.execute('mobile: pressKey', { keycode: 224 }) // screen on again
    }
  },
)
