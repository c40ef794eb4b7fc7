// The Jest environment's options (src/jest/options.ts): the Vitest plugin's, read from
// testEnvironmentOptions beside jest-environment-node's own keys, paths against Jest's rootDir.
import { expect, test } from 'vitest'
import { jestEnergyOptions, readRunTarget, RUN_ENV } from '../../src/jest/options.js'
import { isEnergyError } from '../../src/model/index.js'
import { resolveOptions } from '../../src/session/options.js'

test('the plugin’s options and defaults; jest-environment-node’s keys left to it', () => {
  const options = jestEnergyOptions({
    rootDir: '/project',
    testEnvironmentOptions: {
      app: 'com.example.trails',
      customExportConditions: ['node'],
      globalsCleanup: 'soft',
      checkBudgets: true,
    },
  })
  expect(options).toEqual({
    ...resolveOptions({ app: 'com.example.trails', checkBudgets: true }),
    budgets: '/project/energy-budgets.json',
    artifactsDir: '/project/.vitest-energy/artifacts',
    adbConfigured: false,
  })
})

test('paths are relative to rootDir; an adb address is marked as configured', () => {
  const options = jestEnergyOptions({
    rootDir: '/project',
    testEnvironmentOptions: {
      app: 'com.example.trails',
      budgets: 'energy/budgets.json',
      artifactsDir: '/tmp/raw',
      adb: { port: 5038 },
    },
  })
  expect(options.budgets).toBe('/project/energy/budgets.json')
  expect(options.artifactsDir).toBe('/tmp/raw')
  expect(options.adbConfigured).toBe(true)
})

test('an invalid option is one E_INVALID_OPTION whose hint points at the Jest config', () => {
  try {
    jestEnergyOptions({ rootDir: '/p', testEnvironmentOptions: { app: 'x', powr: 'odpm' } })
    expect.unreachable()
  } catch (error) {
    expect(isEnergyError(error) && error.code).toBe('E_INVALID_OPTION')
    const { message, hint } = error as { message: string; hint: string }
    expect(message).toContain('did you mean `power`?')
    expect(hint).toMatch(/^In the Jest config, fix `app` and `powr` in testEnvironmentOptions/)
  }
})

test('the run’s target crosses to the workers as JSON in the environment', () => {
  const target = {
    phones: [
      { host: '127.0.0.1', port: 5037, serial: 'a' },
      { host: '10.0.0.7', port: 5037, serial: 'a' },
    ],
    run: 'r',
    virtual: true,
    runDir: '/r',
  }
  expect(readRunTarget({ [RUN_ENV]: JSON.stringify(target) })).toEqual(target)
  expect(readRunTarget({})).toBeUndefined()
})
