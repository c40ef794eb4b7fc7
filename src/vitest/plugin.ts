/**
 * `vitest-energy/plugin`: wires vitest-energy into a Vitest project.
 * - validates the options (clear errors naming the field) and provides them to workers;
 * - adds the global setup that connects to the phone or starts the virtual device;
 * - makes `--reporter=energy` resolvable: Vitest loads custom reporters by import specifier, so
 *   the bare name `energy` resolves to our reporter module.
 */
import { resolve as resolvePath } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'
import type {} from 'vitest/config'
import type { VitestPluginContext } from 'vitest/node'
import { OPTIONS_KEY } from './context.js'
import { resolveOptions, type EnergyOptions } from './options.js'

const REPORTER_ALIAS = 'energy'

/** A sibling module: the TypeScript source in a checkout, the compiled file when installed. */
function modulePath(relative: string): string {
  const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js'
  return fileURLToPath(new URL(`${relative}.${ext}`, import.meta.url))
}

export function energy(options?: EnergyOptions): Plugin {
  const resolved = options === undefined ? undefined : resolveOptions(options)
  return {
    name: 'vitest-energy',
    enforce: 'pre',
    config() {
      if (resolved === undefined) return undefined
      return { test: { globalSetup: [modulePath('./global-setup')] } }
    },
    configureVitest({ project }: VitestPluginContext) {
      // Paths the workers write to are made absolute here, against the project's root.
      if (resolved !== undefined) {
        project.provide(OPTIONS_KEY, {
          ...resolved,
          artifactsDir: resolvePath(project.config.root, resolved.artifactsDir),
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
