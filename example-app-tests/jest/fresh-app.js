// Each test starts from a freshly launched app, so one test's leaked GPS or radio does not leak
// into the next test's energy. `beforeEach` runs holding the test's phone.
export const APP = 'com.example.trails'

export function freshAppPerTest() {
  beforeEach(async () => {
    await driver.execute('mobile: terminateApp', { appId: APP })
    await driver.execute('mobile: activateApp', { appId: APP })
  })
}
