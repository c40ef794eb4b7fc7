// `describe`, `it` and the hooks from 'vitest-energy' are Vitest's own functions, typed with the
// energy fixtures (checked by `tsc --noEmit`; the runtime assertions check they are the same
// functions, so a file can import them from either package).
import * as vitest from 'vitest'
import { describe as vitestDescribe, expect, expectTypeOf, test as vitestTest } from 'vitest'
import * as energy from '../../src/public/index.js'
import type { EnergyApi } from '../../src/public/index.js'
import type { DeviceSession } from '../../src/session/device-session.js'

vitestDescribe("vitest-energy's describe, it and hooks", () => {
  vitestTest('are the functions Vitest exports; the suite hooks bound to the energy test', () => {
    expect(energy.describe).toBe(vitest.describe)
    expect(energy.beforeEach).toBe(vitest.beforeEach)
    expect(energy.afterEach).toBe(vitest.afterEach)
    expect(energy.it).toBe(energy.test)
    // Vitest's beforeAll/afterAll find the fixtures through `this` (test.beforeAll(…)): unbound,
    // a hook that takes `driver` fails with FixtureAccessError (test/fixtures/phone-project).
    expect(energy.beforeAll).not.toBe(vitest.beforeAll)
    expect(energy.beforeAll.name).toBe('bound beforeAll')
    expect(energy.afterAll.name).toBe('bound afterAll')
  })

  vitestTest(
    'give beforeEach/afterEach the test fixtures and beforeAll/afterAll the worker ones',
    () => {
      type EachContext = Parameters<Parameters<typeof energy.beforeEach>[0]>[0]
      expectTypeOf<EachContext['driver']>().toEqualTypeOf<WebdriverIO.Browser>()
      expectTypeOf<EachContext['energy']>().toEqualTypeOf<EnergyApi>()
      expectTypeOf<EachContext['device']>().toEqualTypeOf<DeviceSession>()
      type AfterContext = Parameters<Parameters<typeof energy.afterEach>[0]>[0]
      expectTypeOf<AfterContext['energy']>().toEqualTypeOf<EnergyApi>()
      type BeforeAllContext = Parameters<Parameters<typeof energy.beforeAll>[0]>[0]
      type AfterAllContext = Parameters<Parameters<typeof energy.afterAll>[0]>[0]
      expectTypeOf<BeforeAllContext['driver']>().toEqualTypeOf<WebdriverIO.Browser>()
      expectTypeOf<BeforeAllContext['device']>().toEqualTypeOf<DeviceSession>()
      expectTypeOf<AfterAllContext['driver']>().toEqualTypeOf<WebdriverIO.Browser>()
      // Per-test fixtures do not exist in a suite hook (Vitest throws if one asks for them).
      expectTypeOf<BeforeAllContext>().not.toHaveProperty('energy')
      expectTypeOf<BeforeAllContext>().not.toHaveProperty('phone')
      expectTypeOf<AfterAllContext>().not.toHaveProperty('energy')
      // Vitest's own beforeEach knows nothing of them.
      type PlainContext = Parameters<Parameters<typeof vitest.beforeEach>[0]>[0]
      expectTypeOf<PlainContext>().not.toHaveProperty('driver')
    },
  )
})
