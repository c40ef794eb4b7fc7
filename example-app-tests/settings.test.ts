// Settings: screen brightness is the biggest lever a user has.
import { afterEach, beforeEach, expect, test } from 'vitest-energy'
import { freshAppPerTest } from './fresh-app.js'

freshAppPerTest()

// Brightness is a system setting that outlives the app: put it back for the tests that follow.
let brightness = ''
beforeEach(async ({ device }) => {
  brightness = (await device.shell(['settings', 'get', 'system', 'screen_brightness'])).trim()
})
afterEach(async ({ device }) => {
  await device.shell(['settings', 'put', 'system', 'screen_brightness', brightness])
})

test('an idle phone draws less than 2 W', async ({ energy }) => {
  const idle = await energy.baseline({ durationMs: 2000 })
  expect(idle).toDrawLessThan(2, { scope: 'gross' })
})

test('a dim screen draws less than a bright one', async ({ driver, energy }) => {
  await driver.$('~settings').click()
  await driver.$('~brightness-high').click()
  const bright = await energy.measure(() => driver.pause(1500), { label: 'bright' })
  await driver.$('~brightness-low').click()
  const dim = await energy.measure(() => driver.pause(1500), { label: 'dim' })
  expect(dim).toDrawLessThan(bright.energyResult.averagePowerW, { scope: 'gross' })
})
