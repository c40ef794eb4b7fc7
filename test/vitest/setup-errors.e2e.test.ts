// Setup mistakes stop the run before any test, each with its code, what happened and what to do,
// printed once and without a stack trace or Vitest's `Serialized Error` dump: real Vitest runs on
// tiny projects (inside the repository, so `vitest-energy` resolves to this package's dist/).
import { execFile } from 'node:child_process'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, test } from 'vitest'

const repo = fileURLToPath(new URL('../../', import.meta.url))
const scratch = join(repo, 'test/.scratch/setup-errors')
const vitestBin = join(repo, 'node_modules/vitest/vitest.mjs')

const TEST_FILE = [
  "import { test, expect } from 'vitest-energy'",
  "test('measures', async ({ energy }) => {",
  '  const run = await energy.measure(() => new Promise((r) => setTimeout(r, 200)))',
  '  expect(run).toConsumeLessThan(100)',
  '})',
  '',
].join('\n')

async function runWith(
  name: string,
  pluginOptions: string,
): Promise<{ code: number; output: string }> {
  const dir = join(scratch, name)
  await mkdir(dir, { recursive: true })
  await writeFile(
    join(dir, 'vitest.config.ts'),
    [
      "import { defineConfig } from 'vitest/config'",
      "import { energy } from 'vitest-energy/plugin'",
      `export default defineConfig({ plugins: [energy(${pluginOptions})] })`,
      '',
    ].join('\n'),
  )
  await writeFile(join(dir, 'a.test.ts'), TEST_FILE)
  try {
    const r = await promisify(execFile)(process.execPath, [vitestBin, 'run', '--reporter=energy'], {
      cwd: dir,
      env: { ...process.env, NO_COLOR: '1', CI: '1' },
      timeout: 120_000,
    })
    return { code: 0, output: r.stdout + r.stderr }
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number }
    return { code: e.code, output: e.stdout + e.stderr }
  }
}

/** Printed once, no stack frames, no dump of the error's fields. */
function expectCleanFailure(run: { code: number; output: string }, code: string): void {
  expect(run.code, run.output).not.toBe(0)
  expect(run.output.split(`[${code}]`).length - 1, run.output).toBe(1)
  expect(run.output).not.toMatch(/^\s+at /m)
  expect(run.output).not.toContain('Serialized Error')
  expect(run.output).toContain('→') // the hint
  expect(run.output).not.toMatch(/✓ measures/)
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true })
})

describe('setup mistakes', () => {
  test('an app that is not installed: E_APP_NOT_INSTALLED before any test', async () => {
    const run = await runWith('not-installed', "{ app: 'com.example.missing' }")
    expectCleanFailure(run, 'E_APP_NOT_INSTALLED')
    expect(run.output).toContain('com.example.missing is not installed on vdev-0001')
  }, 150_000)

  test('an adb address with no server: an error naming it, no fallback to the virtual device', async () => {
    const port = await freePort()
    const run = await runWith('no-adb', `{ app: 'com.example.trails', adb: { port: ${port} } }`)
    expectCleanFailure(run, 'E_ADB_UNREACHABLE')
    expect(run.output).toContain(`127.0.0.1:${port}`)
    expect(run.output).not.toContain('using the virtual device')
  }, 150_000)

  test('every invalid option at once, NaN as NaN, unknown nested keys', async () => {
    const run = await runWith(
      'bad-options',
      "{ app: 'com.example.trails', repeats: NaN, virtualDevice: { devices: 2, bogus: 1 } } as never",
    )
    expectCleanFailure(run, 'E_INVALID_OPTION')
    expect(run.output).toContain('2 vitest-energy options are invalid')
    expect(run.output).toMatch(/`repeats`: got NaN/)
    expect(run.output).toContain('virtualDevice.bogus')
  }, 150_000)
})
