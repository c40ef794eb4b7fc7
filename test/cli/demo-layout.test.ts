/**
 * Where `vitest-energy demo` runs and writes: in place in a checkout, under the current directory
 * (never node_modules/) when installed; and the checks that the installed copy can run.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, sep } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import {
  DEMO_DIR,
  demoLayout,
  demoVitestScript,
  type DemoLayout,
} from '../../src/cli/commands/demo.js'
import { isEnergyError } from '../../src/model/index.js'
import { REPO } from './_run.js'

const written = (l: DemoLayout) => [l.suite, l.fixedReport, l.report, l.artifacts]

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (error) {
    if (isEnergyError(error)) return error.code
    throw error
  }
  return undefined
}

describe('demoLayout', () => {
  test('a checkout runs example-app-tests in place, reports in its .vitest-energy/', () => {
    const root = join(sep, 'src', 'vitest-energy')
    const layout = demoLayout(root, join(sep, 'elsewhere'))
    expect(layout).toEqual({
      suite: join(root, 'example-app-tests'),
      fixedReport: join(root, '.vitest-energy', 'demo-fixed-build.json'),
      report: join(root, '.vitest-energy', 'demo-report.json'),
      artifacts: join(root, 'example-app-tests', '.vitest-energy', 'artifacts'),
    })
  })

  test('an installed package copies the tests under the current directory and writes only there', () => {
    const project = join(sep, 'home', 'me', 'my-app')
    const root = join(project, 'node_modules', 'vitest-energy')
    const layout = demoLayout(root, project)
    expect(layout.copyFrom).toBe(join(root, 'example-app-tests'))
    expect(layout.suite).toBe(join(project, DEMO_DIR))
    for (const path of written(layout)) {
      expect(path.startsWith(`${layout.suite}${sep}`) || path === layout.suite, path).toBe(true)
      expect(path.split(sep), path).not.toContain('node_modules')
    }
    expect(layout.report).toBe(join(project, DEMO_DIR, 'demo-report.json'))
  })

  test('a pnpm install (node_modules/.pnpm/…) is still an install', () => {
    const project = join(sep, 'p')
    const root = join(
      project,
      'node_modules',
      '.pnpm',
      'vitest-energy@0.1.0',
      'node_modules',
      'vitest-energy',
    )
    expect(demoLayout(root, join(project, 'sub')).suite).toBe(join(project, 'sub', DEMO_DIR))
  })

  test('run from inside node_modules/: E_DEMO_WRONG_DIRECTORY instead of writing there', () => {
    const root = join(sep, 'p', 'node_modules', 'vitest-energy')
    expect(codeOf(() => demoLayout(root, root))).toBe('E_DEMO_WRONG_DIRECTORY')
  })
})

describe('demoVitestScript', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-demo-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('in this checkout it finds the repository’s vitest', () => {
    const script = demoVitestScript(demoLayout(REPO, REPO), REPO)
    expect(script).toBe(join(REPO, 'node_modules', 'vitest', 'vitest.mjs'))
  })

  test('a current directory outside the project: E_DEMO_WRONG_DIRECTORY', () => {
    const layout = { ...demoLayout(REPO, dir), suite: join(dir, DEMO_DIR) }
    expect(codeOf(() => demoVitestScript(layout, REPO))).toBe('E_DEMO_WRONG_DIRECTORY')
  })

  test('a project with vitest-energy but without vitest: E_DEMO_NO_VITEST', () => {
    const project = join(dir, 'project')
    mkdirSync(join(project, 'node_modules'), { recursive: true })
    symlinkSync(REPO, join(project, 'node_modules', 'vitest-energy'), 'dir')
    const layout = { ...demoLayout(REPO, project), suite: join(project, DEMO_DIR) }
    expect(codeOf(() => demoVitestScript(layout, REPO))).toBe('E_DEMO_NO_VITEST')
  })
})
