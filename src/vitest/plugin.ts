/**
 * `vitest-energy/plugin`: wires vitest-energy into a Vitest project.
 * - validates the options (clear errors naming the field) and provides them to workers;
 * - adds the global setup that connects to the phone or starts the virtual device, and the setup
 *   file that holds each test's phone lease outside its timeout;
 * - fits Vitest's defaults to UI tests on phones when the user has not set them: one worker per
 *   phone, and timeouts for an Appium test with an energy window (docs/configuration.md);
 * - makes `--reporter=energy` resolvable: Vitest loads custom reporters by import specifier, so
 *   the bare name `energy` resolves to our reporter module.
 */
import { resolve as resolvePath } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Plugin, UserConfig } from 'vite'
import type {} from 'vitest/config'
import type { VitestPluginContext } from 'vitest/node'
import { UI_TEST_TIMEOUT_MS, resolveOptions, type EnergyOptions } from '../session/options.js'
import { choosePhones, phoneCount } from '../session/phones.js'
import { setupFailure } from '../session/setup-failure.js'
import { OPTIONS_KEY } from './context.js'

const REPORTER_ALIAS = 'energy'

/** A sibling module: the TypeScript source in a checkout, the compiled file when installed. */
function modulePath(relative: string): string {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js'
  return fileURLToPath(new URL(`${relative}.${ext}`, import.meta.url))
}

export function energy(options?: EnergyOptions): Plugin {
  let resolved: ReturnType<typeof resolveOptions> | undefined
  try {
    resolved = options === undefined ? undefined : resolveOptions(options)
  } catch (error) {
    throw setupFailure(error)
  }
  const adbConfigured = options?.adb !== undefined
  return {
    name: 'vitest-energy',
    enforce: 'pre',
    async config(user: UserConfig) {
      if (resolved === undefined) return undefined
      const mine = user.test ?? {}
      const defaults: Record<string, number> = {}
      if (mine.testTimeout === undefined) defaults['testTimeout'] = UI_TEST_TIMEOUT_MS
      if (mine.hookTimeout === undefined) defaults['hookTimeout'] = UI_TEST_TIMEOUT_MS
      // One worker per phone: a phone measures one test at a time, so more workers only wait.
      // (`--maxWorkers` on the command line still wins; then workers take turns per test.)
      if (mine.maxWorkers === undefined) {
        const phones = await choosePhones(resolved, { adbConfigured }).catch((error: unknown) => {
          throw setupFailure(error)
        })
        defaults['maxWorkers'] = phoneCount(phones)
      }
      return {
        test: {
          globalSetup: [modulePath('./global-setup')],
          setupFiles: [modulePath('./setup-file')],
          ...defaults,
        },
      }
    },
    configureVitest({ project }: VitestPluginContext) {
      // Paths the workers write to are made absolute here, against the project's root.
      if (resolved !== undefined) {
        project.provide(OPTIONS_KEY, {
          ...resolved,
          artifactsDir: resolvePath(project.config.root, resolved.artifactsDir),
          adbConfigured,
        })
      }
    },
    resolveId(id) {
      if (id === REPORTER_ALIAS) return modulePath('../../reporter/index')
      return null
    },
  }
}

export type { EnergyOptions }
