// Runs real Jest 30 (native ESM) as a child process, for the tests under test/jest/.
import { execFile } from 'node:child_process'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

export const repo = fileURLToPath(new URL('../../', import.meta.url))
export const jestBin = join(repo, 'node_modules/jest/bin/jest.js')

/**
 * Runs Jest with its cache in a temporary directory that is removed afterwards (Jest's default,
 * `<tmpdir>/jest_<uid>`, would outlive the run). Resolves with stdout and stderr, also when Jest
 * exits 1 (failed tests); any other exit code throws with Jest's output.
 */
export async function runJest(
  args: readonly string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<{ stdout: string; stderr: string; code: number }> {
  const cache = await mkdtemp(join(tmpdir(), 'vitest-energy-jest-cache-'))
  try {
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      ['--experimental-vm-modules', jestBin, ...args, `--cacheDirectory=${cache}`],
      {
        cwd: options.cwd,
        env: { ...process.env, NO_COLOR: '1', ...options.env },
        timeout: options.timeoutMs ?? 120_000,
        maxBuffer: 16 * 1024 * 1024,
      },
    )
    return { stdout, stderr, code: 0 }
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; code?: number }
    if (e.code !== 1)
      throw new Error(`jest failed (${e.code}):\n${e.stderr ?? ''}\n${e.stdout ?? ''}`)
    return { stdout: e.stdout ?? '', stderr: e.stderr ?? '', code: e.code }
  } finally {
    await rm(cache, { recursive: true, force: true })
  }
}

export { listTree } from '../e2e/tree.js'
