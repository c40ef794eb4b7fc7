// A child command of an e2e test: its exit code and everything it printed (stdout, then stderr:
// Vitest and Jest print failures on stderr), whether it failed or not.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'

export interface Captured {
  readonly code: number
  readonly output: string
}

export async function captured(
  command: string,
  args: readonly string[],
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly timeoutMs: number },
): Promise<Captured> {
  try {
    const result = await promisify(execFile)(command, args, {
      cwd: options.cwd,
      env: options.env,
      timeout: options.timeoutMs,
      maxBuffer: 16 * 1024 * 1024,
    })
    return { code: 0, output: result.stdout + result.stderr }
  } catch (error) {
    const e = error as { stdout: string; stderr: string; code: number }
    return { code: e.code, output: e.stdout + e.stderr }
  }
}
