/**
 * `vitest-energy/plugin`: the Vite plugin that wires vitest-energy into a Vitest project. It makes
 * `--reporter=energy` resolvable (Vitest loads custom reporters by import specifier, so we resolve
 * the bare name `energy` to our reporter module).
 */
import { fileURLToPath } from 'node:url'
import type { Plugin } from 'vite'

const REPORTER_ALIAS = 'energy'

/** Our reporter's module: the TypeScript source in a checkout, the compiled file when installed. */
function reporterModulePath(): string {
  const here = import.meta.url
  const ext = here.endsWith('.ts') ? 'ts' : 'js'
  return fileURLToPath(new URL(`../../reporter/index.${ext}`, here))
}

export function energy(): Plugin {
  return {
    name: 'vitest-energy',
    enforce: 'pre',
    resolveId(id) {
      if (id === REPORTER_ALIAS) return reporterModulePath()
      return null
    },
  }
}
