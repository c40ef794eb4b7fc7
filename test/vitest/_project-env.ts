// The environment an e2e test runs a fixture project's Vitest in: plain output, CI's budget mode
// (budgets checked, never written into the fixture), and everything the run leaves — its
// temporary files (the shared lease folder too) and the raw data of failed tests (the projects'
// configs read ARTIFACTS_DIR) — in the test's own folder, removed after it.
import { join } from 'node:path'

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
