/**
 * Finding Appium and the UiAutomator2 driver where a run would: the user's project (resolved from
 * its directory, as `import` from a test file would), vitest-energy's own dependencies (where the
 * plugin loads Appium from), and the Appium home (`$APPIUM_HOME`, else `~/.appium`: where
 * `appium driver install` puts drivers; the plugin links the drivers installed there). And the
 * `adb` client the driver runs: `$ANDROID_HOME` or `$ANDROID_SDK_ROOT`'s platform-tools, else the
 * one on the PATH (which the plugin links into an SDK root of its own).
 */
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { homedir } from 'node:os'
import { dirname, join } from 'node:path'
import { findOnPath } from '../../session/appium-server.js'

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

/** Where the `adb` client the UiAutomator2 driver runs was found. */
export interface FoundAdbClient {
  readonly path: string
  readonly from: 'ANDROID_HOME' | 'ANDROID_SDK_ROOT' | 'PATH'
}

/** Looks the adb client up; `missing` names where an SDK root said it would be. */
export type AdbClientFinder = () => FoundAdbClient | { readonly missing: string } | undefined

export function adbClientFinder(
  env: Readonly<Record<string, string | undefined>>,
): AdbClientFinder {
  const name = process.platform === 'win32' ? 'adb.exe' : 'adb'
  return () => {
    for (const variable of ['ANDROID_HOME', 'ANDROID_SDK_ROOT'] as const) {
      const root = env[variable]
      if (root === undefined || root === '') continue
      const path = join(root, 'platform-tools', name)
      return existsSync(path) ? { path, from: variable } : { missing: path }
    }
    const onPath = findOnPath(name)
    return onPath === undefined ? undefined : { path: onPath, from: 'PATH' }
  }
}
