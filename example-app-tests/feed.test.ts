// The feed: opening it is within budget; scrolling runs the slow elevation loop (a deliberate bug).
import { expect, test } from 'vitest-energy'
import { energyBug } from './energy-bug.js'
import { freshAppPerTest } from './fresh-app.js'

freshAppPerTest()

test('opening the feed stays within 2.5 J', async ({ driver, energy }) => {
  const run = await energy.measure(async () => {
    await driver.$('~feed').click()
    await driver.$('~feed-list').waitForDisplayed()
    await driver.pause(500)
  })
  expect(run).toConsumeLessThan(2.5)
})

test('refreshing the feed draws less than 3 W on average', async ({ driver, energy }) => {
  const run = await energy.measure(async () => {
    await driver.$('~refresh').click()
    await driver.pause(1000)
  })
  expect(run).toDrawLessThan(3, { scope: 'gross' })
  expect(run.method('FeedRepository.refresh')).toConsumeLessThan(1)
})

// Deliberate bug: FeedAdapter.bind smooths the elevation profile 60 times per row.
energyBug(
  'binding feed rows costs less than 1 mJ (fails: slow loop in FeedAdapter.bind)',
  async ({ driver, energy }) => {
    const run = await energy.measure(async () => {
      await driver.$('~feed-list').click()
      await driver.pause(1000)
    })
    expect(run.method('com.example.trails.FeedAdapter.bind')).toConsumeLessThan(0.001)
  },
)
