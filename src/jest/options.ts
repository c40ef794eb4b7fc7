/**
 * The vitest-energy options of a Jest project: the same names and validation as the Vitest plugin
 * (`src/session/options.ts`), read from `testEnvironmentOptions` — where jest-environment-node
 * also reads its own two keys, left out here. Paths are resolved against Jest's `rootDir`.
 */
import { resolve } from 'node:path'
import { resolveOptions } from '../session/options.js'
import type { DeviceTarget, ProvidedEnergyOptions } from '../session/target.js'

/** Keys of `testEnvironmentOptions` that jest-environment-node reads (not vitest-energy options). */
export const NODE_ENVIRONMENT_KEYS: readonly string[] = ['customExportConditions', 'globalsCleanup']

/** The parts of Jest's project config read here. */
export interface JestProjectConfig {
  readonly rootDir: string
  readonly testEnvironmentOptions: Readonly<Record<string, unknown>>
}

/** Validates the options (throws one `E_INVALID_OPTION` listing every problem). */
export function jestEnergyOptions(config: JestProjectConfig): ProvidedEnergyOptions {
  const input = Object.fromEntries(
    Object.entries(config.testEnvironmentOptions).filter(
      ([key]) => !NODE_ENVIRONMENT_KEYS.includes(key),
    ),
  )
  const resolved = resolveOptions(input, 'jest')
  return {
    ...resolved,
    budgets: resolve(config.rootDir, resolved.budgets),
    artifactsDir: resolve(config.rootDir, resolved.artifactsDir),
    adbConfigured: input['adb'] !== undefined,
  }
}

/**
 * Where the global setup tells the test processes about the run: Jest starts its workers after
 * the global setup, and they inherit the environment (so does a run in band).
 */
export const RUN_ENV = 'VITEST_ENERGY_JEST_RUN'

export function readRunTarget(
  env: Readonly<Record<string, string | undefined>>,
): DeviceTarget | undefined {
  const text = env[RUN_ENV]
  if (text === undefined || text === '') return undefined
  return JSON.parse(text) as DeviceTarget
}
