/**
 * Finding Appium and the UiAutomator2 driver where a run would: the user's project (resolved from
 * its directory, as `import` from a test file would), vitest-energy's own dependencies (where the
 * plugin loads Appium from), and the Appium home (`$APPIUM_HOME`, else `~/.appium`: where
 * `appium driver install` puts drivers; the plugin links the drivers installed there).
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'

export interface FoundPackage {
  readonly name: string
  readonly version: string
  /** The package's directory. */
  readonly dir: string
  readonly from: 'project' | 'vitest-energy' | 'appium-home'
}

/** Looks a package up; injectable so that tests can make one missing. */
export type PackageFinder = (name: string) => FoundPackage | undefined

function readManifest(file: string, name: string): { version: string } | undefined {
  try {
    const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: unknown; version?: unknown }
    if (pkg.name !== name || typeof pkg.version !== 'string') return undefined
    return { version: pkg.version }
  } catch {
    return undefined
  }
}

/** The package.json of `name` as `require` resolves it from `base` (a file path or URL). */
function resolveFrom(base: string, name: string): string | undefined {
  const require = createRequire(base)
  try {
    return require.resolve(`${name}/package.json`)
  } catch {
    // `exports` may hide package.json: resolve the entry and walk up to its manifest.
  }
  let entry: string
  try {
    entry = require.resolve(name)
  } catch {
    return undefined
  }
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    const file = join(dir, 'package.json')
    if (existsSync(file) && readManifest(file, name) !== undefined) return file
  }
  return undefined
}

/** The finder a real run's environment gives: project, then vitest-energy, then the Appium home. */
export function packageFinder(
  cwd: string,
  env: Readonly<Record<string, string | undefined>>,
): PackageFinder {
  const appiumHome = env['APPIUM_HOME'] ?? join(homedir(), '.appium')
  const places: ReadonlyArray<
    readonly [FoundPackage['from'], (name: string) => string | undefined]
  > = [
    ['project', (name) => resolveFrom(join(cwd, 'package.json'), name)],
    ['vitest-energy', (name) => resolveFrom(import.meta.url, name)],
    [
      'appium-home',
      (name) => {
        const file = join(appiumHome, 'node_modules', name, 'package.json')
        return existsSync(file) ? file : undefined
      },
    ],
  ]
  return (name) => {
    for (const [from, locate] of places) {
      const file = locate(name)
      const manifest = file === undefined ? undefined : readManifest(file, name)
      if (file !== undefined && manifest !== undefined) {
        return { name, version: manifest.version, dir: dirname(file), from }
      }
    }
    return undefined
  }
}
