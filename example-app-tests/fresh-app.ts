// Each test starts from a freshly launched app, so one test's leaked GPS or radio does not leak
// into the next test's energy.
import { beforeEach, test } from 'vitest-energy'

export const APP = 'com.example.trails'

export function freshAppPerTest(): void {
  beforeEach(async ({ driver }) => {
    await driver.execute('mobile: terminateApp', { appId: APP })
    await driver.execute('mobile: activateApp', { appId: APP })
  })
}

export { test }
