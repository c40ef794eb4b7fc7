// Sync: after a sync the app polls the server every 4 s, so the cellular radio never sleeps
// (a deliberate bug).
import { expect, test } from 'vitest-energy'
import { energyBug } from './energy-bug.js'
import { freshAppPerTest } from './fresh-app.js'

freshAppPerTest()

test('a sync costs less than 10 J', async ({ driver, energy }) => {
  await driver.$('~sync').click()
  const run = await energy.measure(async () => {
    await driver.$('~sync-now').click()
    await driver.pause(2500)
  })
  expect(run).toConsumeLessThan(10)
})

// Deliberate bug: SyncManager.poll keeps the modem up after the sync finished.
energyBug(
  'the radio is quiet after a sync (fails: polling every 4 s)',
  async ({ driver, energy }) => {
    await driver.$('~sync').click()
    await energy.measure(
      async () => {
        await driver.$('~sync-now').click()
        await driver.pause(2000)
      },
      { label: 'syncing' },
    )
    const after = await energy.measure(
      async () => {
        await driver.$('~feed').click()
        await driver.pause(5000)
      },
      { label: 'after the sync' },
    )
    expect(after).toConsumeLessThan(0.1, { scope: 'component:cellular' })
  },
)
