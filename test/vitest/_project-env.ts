// The environment an e2e test runs a fixture project's Vitest in: plain output, CI's budget mode
// (budgets checked, never written into the fixture), and everything the run leaves — its
// temporary files (the shared lease folder too) and the raw data of failed tests (the projects'
// configs read ARTIFACTS_DIR) — in the test's own folder, removed after it.
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { EnergyReport } from '../../reporter/report.js'

const vitestBin = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))

export function projectEnv(dir: string, more: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    NO_COLOR: '1',
    CI: '1',
    TMPDIR: dir,
    ARTIFACTS_DIR: join(dir, 'artifacts'),
    ...more,
  }
}

/** `vitest run` with the energy reporter (and `others`), its JSON and HTML reports in `dir`. */
export function energyRunArgs(dir: string, ...others: string[]): string[] {
  return [
    'run',
    '--reporter=energy',
    ...others.map((name) => `--reporter=${name}`),
    `--outputFile.energy=${join(dir, 'energy.json')}`,
    `--outputFile.energy-html=${join(dir, 'report.html')}`,
  ]
}

/** What a fixture project's run printed, how it exited, and its energy report. */
export interface ProjectRun {
  readonly stdout: string
  /** stdout, then stderr. */
  readonly output: string
  readonly code: number
  readonly report: EnergyReport
}

/**
 * Runs the fixture project at `root` (`vitest run` with the energy reporter and `reporters`) in
 * a folder of its own, removed after; `env` comes on top of `projectEnv`'s. With `interrupt`,
 * the project's tests get `STOP_MARKER`, a file path: once a test creates it, the run gets SIGINT
 * (Ctrl-C).
 */
export async function runEnergyProject(
  root: string,
  options: {
    readonly env?: Record<string, string>
    readonly reporters?: readonly string[]
    readonly interrupt?: boolean
  } = {},
): Promise<ProjectRun> {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-project-'))
  const marker = join(dir, 'stop-marker')
  try {
    const { stdout, stderr, code } = await new Promise<{
      stdout: string
      stderr: string
      code: number
    }>((resolve) => {
      const child = execFile(
        process.execPath,
        [vitestBin, ...energyRunArgs(dir, ...(options.reporters ?? []))],
        {
          cwd: root,
          env: projectEnv(dir, {
            ...options.env,
            ...(options.interrupt !== true ? {} : { STOP_MARKER: marker }),
          }),
          timeout: 240_000,
        },
        (error, stdout, stderr) => {
          clearInterval(watch)
          resolve({
            stdout,
            stderr,
            code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1,
          })
        },
      )
      const watch = setInterval(() => {
        if (options.interrupt !== true || !existsSync(marker)) return
        clearInterval(watch)
        child.kill('SIGINT')
      }, 50)
    })
    const report = JSON.parse(await readFile(join(dir, 'energy.json'), 'utf8')) as EnergyReport
    return { stdout, output: stdout + stderr, code, report }
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}
