// `npm run build` runs tsc only when an input changed since the last build, and builds everything
// when an output went missing (tsc's build info would never bring it back).
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, beforeEach, expect, test } from 'vitest'

type State = { state: 'up-to-date' | 'stale' } | { state: 'missing-output'; source: string }
// A plain JavaScript module of the build (bin/ is not compiled): typed here.
const module = '../../bin/build-state.js'
const { buildState } = (await import(module)) as { buildState: (root: string) => State }

let root: string
const at = (path: string, seconds: number, text = ''): void => {
  const file = join(root, path)
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, text)
  utimesSync(file, seconds, seconds)
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'vitest-energy-build-state-'))
  at('src/a.ts', 1000)
  at('src/a.test.ts', 1000)
  at('src/profiles/p.xml', 1000)
  at('reporter/r.ts', 1000)
  at('tsconfig.json', 1000)
  at('dist/src/a.js', 2000)
  at('dist/reporter/r.js', 2000)
  at('dist/.tsbuildinfo', 2000)
})
afterEach(() => rmSync(root, { recursive: true, force: true }))

test('nothing newer than the last build: up to date', () => {
  expect(buildState(root)).toEqual({ state: 'up-to-date' })
})

test('a source, an asset or a config file changed after it: stale', () => {
  for (const path of ['src/a.ts', 'src/profiles/p.xml', 'tsconfig.json', 'src/a.test.ts']) {
    at(path, 3000)
    expect(buildState(root), path).toEqual({ state: 'stale' })
    at(path, 1000)
  }
  at('src/new.ts', 3000)
  at('dist/src/new.js', 3000)
  expect(buildState(root)).toEqual({ state: 'stale' })
})

test('no build info: stale; an output missing: built again from scratch', () => {
  rmSync(join(root, 'dist/.tsbuildinfo'))
  expect(buildState(root)).toEqual({ state: 'stale' })
  at('dist/.tsbuildinfo', 2000)
  rmSync(join(root, 'dist/reporter/r.js'))
  expect(buildState(root)).toEqual({ state: 'missing-output', source: join('reporter', 'r.ts') })
})
