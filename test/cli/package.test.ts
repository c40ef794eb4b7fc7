/**
 * What `npm pack` ships: no demo outputs, caches or source maps whose sources it lacks; the Jest
 * entries that docs/jest.md describes.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { describe, expect, test } from 'vitest'
import { REPO } from './_run.js'

interface PackageJson {
  readonly exports: Record<string, { readonly types: string; readonly default: string } | string>
}
const pkg = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as PackageJson

describe('npm pack', () => {
  const listing = JSON.parse(
    execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], {
      cwd: REPO,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  ) as Array<{ files: Array<{ path: string }> }>
  const files = listing[0]!.files.map((f) => f.path)

  test('ships no demo outputs, caches, or source maps', () => {
    expect(files).toContain('bin/vitest-energy.js')
    expect(files).toContain('example-app-tests/vitest.config.ts')
    expect(files).toContain('example-app-tests/models/trails-fixed.json')
    expect(files).toContain('example-app-tests/energy-budgets.json') // the demo's reviewed budgets
    expect(files).toContain('example-app-tests/jest/jest.config.js') // the demo's Jest flavour
    expect(files).toContain('example-app-tests/jest/energy-budgets.json')
    const junk = files.filter(
      (f) =>
        /(^|\/)(\.vitest-energy|\.vite|\.vite-temp|node_modules)\//.test(f) ||
        f.endsWith('.map') ||
        // a demo run's JSON reports; the budget files are the examples' own
        (/^example-app-tests\/(jest\/)?[^/]+\.json$/.test(f) &&
          !f.endsWith('/energy-budgets.json')),
    )
    expect(junk).toEqual([])
  })

  test('no shipped module points at a source map or source it does not ship', () => {
    const shipped = new Set(files)
    const dangling: string[] = []
    for (const file of files.filter((f) => f.endsWith('.js') && existsSync(join(REPO, f)))) {
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(readFileSync(join(REPO, file), 'utf8'))
      if (url === null || url[1]!.startsWith('data:')) continue
      const map = join(file, '..', url[1]!).split('\\').join('/')
      if (!shipped.has(map)) dangling.push(`${file} → ${map}`)
    }
    expect(dangling).toEqual([])
  })

  test('every export target is shipped (when dist/ is built)', () => {
    if (!existsSync(join(REPO, 'dist'))) return
    const targets = Object.values(pkg.exports).flatMap((t) =>
      typeof t === 'string' ? [t] : [t.types, t.default],
    )
    expect(targets.map((t) => t.replace(/^\.\//, '')).filter((t) => !files.includes(t))).toEqual([])
  })
})

describe.skipIf(!existsSync(join(REPO, 'dist')))('the Jest entries of docs/jest.md', () => {
  const load = (entry: string) => {
    const target = pkg.exports[entry]
    if (typeof target !== 'object') throw new Error(`no exports entry ${entry}`)
    return import(pathToFileURL(join(REPO, target.default)).href) as Promise<
      Record<string, unknown>
    >
  }

  test('vitest-energy/jest: the matchers, configureEnergyMatchers, recordEnergy and runsFromReport', async () => {
    const jest = await load('./jest')
    expect(Object.keys(jest).sort()).toEqual([
      'configureEnergyMatchers',
      'energyMatchers',
      'recordEnergy',
      'runsFromReport',
    ])
    expect(Object.keys(jest['energyMatchers'] as object)).toContain('toConsumeLessThan')
  })

  test('vitest-energy/jest-reporter: the reporter class as the default export', async () => {
    const reporter = await load('./jest-reporter')
    expect(Object.keys(reporter)).toEqual(['default'])
    expect(typeof reporter['default']).toBe('function')
    expect(typeof (reporter['default'] as { prototype: object }).prototype).toBe('object')
    expect('onRunComplete' in (reporter['default'] as { prototype: object }).prototype).toBe(true)
  })

  test('vitest-energy/jest-environment: the test environment class as the default export', async () => {
    const environment = await load('./jest-environment')
    expect(Object.keys(environment)).toEqual(['default'])
    const prototype = (environment['default'] as { prototype: object }).prototype
    for (const method of ['setup', 'teardown', 'handleTestEvent', 'getVmContext'])
      expect(method in prototype, method).toBe(true)
  })

  test('vitest-energy/jest-global-setup and -teardown: functions as the default exports', async () => {
    for (const entry of ['./jest-global-setup', './jest-global-teardown']) {
      const hook = await load(entry)
      expect(Object.keys(hook), entry).toEqual(['default'])
      expect(typeof hook['default'], entry).toBe('function')
    }
  })
})
