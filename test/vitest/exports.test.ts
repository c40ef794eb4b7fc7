// `describe`, `it` and the hooks from 'vitest-energy' are Vitest's own functions, typed with the
// energy fixtures (checked by `tsc --noEmit`; the runtime assertions check they are the same
// functions, so a file can import them from either package).
import * as vitest from 'vitest'
import { describe as vitestDescribe, expect, expectTypeOf, test as vitestTest } from 'vitest'
import * as energy from '../../src/public/index.js'
import type { EnergyApi } from '../../src/public/index.js'
import type { DeviceSession } from '../../src/session/device-session.js'

vitestDescribe("vitest-energy's describe, it and hooks", () => {
  vitestTest('are the functions Vitest exports', () => {
    expect(energy.describe).toBe(vitest.describe)
    expect(energy.beforeEach).toBe(vitest.beforeEach)
    expect(energy.afterEach).toBe(vitest.afterEach)
    expect(energy.beforeAll).toBe(vitest.beforeAll)
    expect(energy.afterAll).toBe(vitest.afterAll)
    expect(energy.it).toBe(energy.test)
  })

  vitestTest('give beforeEach/afterEach the test fixtures and beforeAll the worker ones', () => {
    type EachContext = Parameters<Parameters<typeof energy.beforeEach>[0]>[0]
    expectTypeOf<EachContext['driver']>().toEqualTypeOf<WebdriverIO.Browser>()
    expectTypeOf<EachContext['energy']>().toEqualTypeOf<EnergyApi>()
    expectTypeOf<EachContext['device']>().toEqualTypeOf<DeviceSession>()
    type AfterContext = Parameters<Parameters<typeof energy.afterEach>[0]>[0]
    expectTypeOf<AfterContext['energy']>().toEqualTypeOf<EnergyApi>()
    type AllContext = Parameters<Parameters<typeof energy.beforeAll>[0]>[0]
    expectTypeOf<AllContext['driver']>().toEqualTypeOf<WebdriverIO.Browser>()
    // @ts-expect-error test-scoped fixtures are not available in beforeAll
    expectTypeOf<AllContext['energy']>().toBeNever()
    // Vitest's own beforeEach knows nothing of them.
    type PlainContext = Parameters<Parameters<typeof vitest.beforeEach>[0]>[0]
    // @ts-expect-error no driver on a plain Vitest hook's context
    expectTypeOf<PlainContext['driver']>().toBeUnknown()
  })
})
