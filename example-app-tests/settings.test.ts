// Settings: screen brightness is the biggest lever a user has.
import { expect, test } from 'vitest-energy'
import { freshAppPerTest } from './fresh-app.js'

freshAppPerTest()

test('an idle phone draws less than 2 W', async ({ energy }) => {
  const idle = await energy.baseline({ durationMs: 2000 })
  expect(idle).toDrawLessThan(2, { scope: 'gross' })
})

test('a dim screen draws less than a bright one', async ({ driver, energy }) => {
  await driver.$('~settings').click()
  await driver.$('~brightness-high').click()
  const bright = await energy.measure(() => driver.pause(1500), { label: 'bright' })
  await driver.$('~brightness-low').click()
  try {
    const dim = await energy.measure(() => driver.pause(1500), { label: 'dim' })
    expect(dim).toDrawLessThan(bright.energyResult.averagePowerW, { scope: 'gross' })
  } finally {
    // Leave the screen dim: brightness is a system setting that outlives the app.
    await driver.$('~brightness-low').click()
  }
})
