/**
 * Where `vitest-energy demo` runs and writes: in place in a checkout; when installed, a temporary
 * copy of the tests, its results kept under the current directory (never node_modules/); and the
 * checks that the copy can run.
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

/** Every path the demo writes that outlives it. */
const kept = (l: DemoLayout) => [l.fixedReport, l.report, l.html, l.keptArtifacts]

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
    const layout = demoLayout(root, join(sep, 'elsewhere'), join(sep, 'tmp', 'unused'))
    expect(layout).toEqual({
      suite: join(root, 'example-app-tests'),
      fixedReport: join(root, '.vitest-energy', 'demo-fixed-build.json'),
      report: join(root, '.vitest-energy', 'demo-report.json'),
      html: join(root, 'example-app-tests', '.vitest-energy', 'report', 'index.html'),
      artifacts: join(root, 'example-app-tests', '.vitest-energy', 'artifacts'),
      keptArtifacts: join(root, 'example-app-tests', '.vitest-energy', 'artifacts'),
    })
  })

  test('an installed package runs a copy in the scratch folder and keeps only results under the current directory', () => {
    const project = join(sep, 'home', 'me', 'my-app')
    const root = join(project, 'node_modules', 'vitest-energy')
    const scratch = join(sep, 'tmp', 'vitest-energy-demo-x')
    const layout = demoLayout(root, project, scratch)
    expect(layout.scratch).toEqual({
      copyFrom: join(root, 'example-app-tests'),
      dir: scratch,
      nodeModules: join(project, 'node_modules'),
    })
    // No test file of the demo in the project: the suite runs from the scratch folder.
    expect(layout.suite).toBe(join(scratch, 'example-app-tests'))
    expect(layout.artifacts.startsWith(`${scratch}${sep}`)).toBe(true)
    for (const path of kept(layout)) {
      expect(path.startsWith(join(project, DEMO_DIR, sep)), path).toBe(true)
      expect(path.split(sep), path).not.toContain('node_modules')
    }
    expect(layout.report).toBe(join(project, DEMO_DIR, 'demo-report.json'))
    expect(layout.html).toBe(join(project, DEMO_DIR, 'report.html'))
  })

  test("a pnpm install (node_modules/.pnpm/…) is still an install; its links are the package's own folder", () => {
    const project = join(sep, 'p')
    const store = join(project, 'node_modules', '.pnpm', 'vitest-energy@0.1.0', 'node_modules')
    const root = join(store, 'vitest-energy')
    const layout = demoLayout(root, join(project, 'sub'), join(sep, 'tmp', 's'))
    expect(layout.report).toBe(join(project, 'sub', DEMO_DIR, 'demo-report.json'))
    expect(layout.scratch?.nodeModules).toBe(store)
  })

  test('run from inside node_modules/: E_DEMO_WRONG_DIRECTORY instead of writing there', () => {
    const root = join(sep, 'p', 'node_modules', 'vitest-energy')
    expect(codeOf(() => demoLayout(root, root, join(sep, 'tmp', 's')))).toBe(
      'E_DEMO_WRONG_DIRECTORY',
    )
  })
})

describe('demoVitestScript', () => {
  const dir = mkdtempSync(join(tmpdir(), 'cli-demo-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  test('in this checkout it finds the repository’s vitest', () => {
    const script = demoVitestScript(demoLayout(REPO, REPO, dir), REPO)
    expect(script).toBe(join(REPO, 'node_modules', 'vitest', 'vitest.mjs'))
  })

  test('a suite that cannot import this vitest-energy: E_DEMO_WRONG_DIRECTORY', () => {
    const layout = { ...demoLayout(REPO, dir, dir), suite: join(dir, 'example-app-tests') }
    expect(codeOf(() => demoVitestScript(layout, REPO))).toBe('E_DEMO_WRONG_DIRECTORY')
  })

  test('a project with vitest-energy but without vitest: E_DEMO_NO_VITEST', () => {
    const project = join(dir, 'project')
    mkdirSync(join(project, 'node_modules'), { recursive: true })
    symlinkSync(REPO, join(project, 'node_modules', 'vitest-energy'), 'dir')
    const layout = { ...demoLayout(REPO, project, dir), suite: join(project, 'example-app-tests') }
    expect(codeOf(() => demoVitestScript(layout, REPO))).toBe('E_DEMO_NO_VITEST')
  })
})
