// The documentation's examples run as written. Every TypeScript block of README.md and docs/ that
// is a complete vitest-energy test or config carries a marker (`<!-- example: <project>/<file> -->`,
// or `<!-- example: skip (<why>) -->`); each marked project is written out and run by real Vitest
// against the virtual device. The README's quick start is run from a packed install by
// test/e2e/user-project.e2e.test.ts; the other projects run here.
import { execFile } from 'node:child_process'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, test } from 'vitest'
import { docExamples, docFiles, tsBlocks } from '../e2e/doc-examples.js'

const repo = fileURLToPath(new URL('../../', import.meta.url))
// Inside the repository, so `vitest-energy` resolves to this package (self-reference, dist/).
const scratch = join(repo, 'test/.scratch/docs-examples')
const vitestBin = join(repo, 'node_modules/vitest/vitest.mjs')

/** A block that a user would copy as a whole file: a config or a test using the package. */
function isComplete(code: string): boolean {
  const usesPackage = /from 'vitest-energy(\/[\w-]+)?'/.test(code)
  return usesPackage && (/\bdefineConfig\(/.test(code) || /^test\(/m.test(code))
}

test('every complete example in the docs is marked, to run or with the reason it cannot', async () => {
  const unmarked: string[] = []
  let complete = 0
  for (const doc of await docFiles()) {
    for (const block of tsBlocks(doc, await readFile(join(repo, doc), 'utf8'))) {
      if (!isComplete(block.code)) continue
      complete++
      if (block.marker === undefined) unmarked.push(`${doc}: ${block.code.split('\n')[0]}`)
    }
  }
  expect(complete).toBeGreaterThanOrEqual(6)
  expect(unmarked).toEqual([])
})

const projects = new Map<string, { file: string; code: string }[]>()
for (const example of await docExamples()) {
  if (example.project === 'quickstart') continue
  projects.set(example.project, [...(projects.get(example.project) ?? []), example])
}

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true })
})

describe.each([...projects.keys()])('docs project %s', (project) => {
  test('passes on the virtual device', async () => {
    const dir = join(scratch, project)
    await rm(dir, { recursive: true, force: true })
    await mkdir(dir, { recursive: true })
    const files = projects.get(project)!
    for (const { file, code } of files) await writeFile(join(dir, file), code)
    expect(files.map((f) => f.file)).toContain('vitest.config.ts')
    // The run's TMPDIR (the shared lease folder too), removed with the scratch folder.
    const tmp = join(scratch, `${project}.tmp`)
    await mkdir(tmp, { recursive: true })
    let output = ''
    let code = 0
    try {
      const result = await promisify(execFile)(
        process.execPath,
        [vitestBin, 'run', '--reporter=energy', '--reporter=default'],
        {
          cwd: dir,
          env: { ...process.env, NO_COLOR: '1', CI: '1', TMPDIR: tmp },
          timeout: 240_000,
        },
      )
      output = result.stdout + result.stderr
    } catch (error) {
      const e = error as { stdout: string; stderr: string; code: number }
      output = e.stdout + e.stderr
      code = e.code
    }
    expect(code, output).toBe(0)
    const testFiles = files.filter((f) => f.file.endsWith('.test.ts')).length
    expect(output).toMatch(new RegExp(`Test Files\\s+${testFiles} passed`))
  }, 300_000)
})
