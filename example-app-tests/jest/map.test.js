// The map: the location listener registered in onResume is never removed (a deliberate bug), so
// the GPS keeps drawing power after the map screen is gone — charged to the method that started it.
import { energyBug } from './energy-bug.js'
import { freshAppPerTest } from './fresh-app.js'

freshAppPerTest()

// No energy.measure(): the automatic window measures the whole test.
test('opening the map', async () => {
  await driver.$('~map').click()
  await driver.$('~map-view').waitForDisplayed()
  await driver.pause(1000)
})

// Deliberate bug: leaving the map must switch the GPS off; it does not.
energyBug('the GPS is off after leaving the map (fails: leaking GPS listener)', async () => {
  await energy.measure(
    async () => {
      await driver.$('~map').click()
      await driver.pause(1000)
    },
    { label: 'on the map' },
  )
  const after = await energy.measure(
    async () => {
      await driver.$('~feed').click()
      await driver.pause(2000)
    },
    { label: 'after leaving the map' },
  )
  expect(after).toConsumeLessThan(0.05, { scope: 'component:gps' })
})
