// The energy matchers pass a Jest 30 suite: Jest runs test/fixtures/jest-project against the
// compiled package (dist/, built by `npm run build`, which `npm test` runs first) with native ESM.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'

const project = fileURLToPath(new URL('../fixtures/jest-project/', import.meta.url))
const jestBin = fileURLToPath(new URL('../../node_modules/jest/bin/jest.js', import.meta.url))
const built = fileURLToPath(new URL('../../dist/src/public/matchers.js', import.meta.url))
const hasBuild = existsSync(built) && existsSync(jestBin)
if (!hasBuild)
  console.warn('test/jest: skipped — run `npm run build` first (dist/src/public/matchers.js)')

test.skipIf(!hasBuild)('the matcher object passes the Jest 30 suite', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-jest-'))
  try {
    const out = join(dir, 'jest.json')
    await promisify(execFile)(
      process.execPath,
      [
        '--experimental-vm-modules',
        jestBin,
        '--config',
        join(project, 'jest.config.mjs'),
        '--rootDir',
        project,
        '--json',
        `--outputFile=${out}`,
      ],
      { cwd: project, env: { ...process.env, NO_COLOR: '1' } },
    ).catch((error: { stdout?: string; stderr?: string }) => {
      throw new Error(`jest failed:\n${error.stderr ?? ''}\n${error.stdout ?? ''}`)
    })
    const result = JSON.parse(await readFile(out, 'utf8')) as {
      success: boolean
      numPassedTests: number
      numFailedTests: number
      testResults: { assertionResults: { title: string; status: string }[] }[]
    }
    expect(result.numFailedTests).toBe(0)
    expect(result.success).toBe(true)
    const titles = result.testResults.flatMap((r) => r.assertionResults.map((a) => a.title))
    expect(titles).toContain('repeated runs and toNotRegressFrom (Mann–Whitney)')
    expect(titles).toContain('toStayWithinBudget passes under the committed budget')
    expect(result.numPassedTests).toBe(9)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
