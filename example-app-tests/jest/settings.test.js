// Settings: screen brightness is the biggest lever a user has.
import { freshAppPerTest } from './fresh-app.js'

freshAppPerTest()

// Brightness is a system setting that outlives the app: put it back for the tests that follow.
let brightness = ''
beforeEach(async () => {
  brightness = (await device.shell(['settings', 'get', 'system', 'screen_brightness'])).trim()
})
afterEach(async () => {
  await device.shell(['settings', 'put', 'system', 'screen_brightness', brightness])
})

test('an idle phone draws less than 2 W', async () => {
  const idle = await energy.baseline({ durationMs: 2000 })
  expect(idle).toDrawLessThan(2, { scope: 'gross' })
})

test('a dim screen draws less than a bright one', async () => {
  await driver.$('~settings').click()
  await driver.$('~brightness-high').click()
  const bright = await energy.measure(() => driver.pause(1500), { label: 'bright' })
  await driver.$('~brightness-low').click()
  const dim = await energy.measure(() => driver.pause(1500), { label: 'dim' })
  expect(dim).toDrawLessThan(bright.energyResult.averagePowerW, { scope: 'gross' })
})
