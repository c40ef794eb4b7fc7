// The feed: opening it is within budget; refreshing it draws less than 3 W.
import { freshAppPerTest } from './fresh-app.js'

freshAppPerTest()

test('opening the feed stays within its budget', async () => {
  const run = await energy.measure(async () => {
    await driver.$('~feed').click()
    await driver.$('~feed-list').waitForDisplayed()
    await driver.pause(500)
  })
  expect(run).toConsumeLessThan(2.5)
  expect(run).toStayWithinBudget() // energy-budgets.json, written by `jest -u`
})

test('refreshing the feed draws less than 3 W on average', async () => {
  const run = await energy.measure(async () => {
    await driver.$('~refresh').click()
    await driver.pause(1000)
  })
  expect(run).toDrawLessThan(3, { scope: 'gross' })
  expect(run.method('FeedRepository.refresh')).toConsumeLessThan(1)
})
