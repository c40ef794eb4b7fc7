/**
 * `vitest-energy demo`: the newcomer's first command. Runs the Trails example app's UI tests
 * (example-app-tests/) with `--reporter=energy` on the bundled virtual device — two simulated
 * phones, an Appium server, real Vitest. In a checkout of the repository it runs them in place and
 * leaves the JSON reports in .vitest-energy/; from an installed package it copies them to
 * ./vitest-energy-demo/ and runs them there, so nothing is written into node_modules/.
 * Needs the compiled package (`npm run demo` builds it first).
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, isAbsolute, join, relative, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import { EnergyError, type EnergyErrorCode } from '../../model/index.js'
import type { CliCommand, CliIo } from '../_command.js'

export const DemoErrors = {
  /** The package has no example-app-tests/ (an install that left them out). */
  MISSING: 'E_DEMO_MISSING',
  /** Vitest (a peer dependency) cannot be found from where the demo runs. */
  NO_VITEST: 'E_DEMO_NO_VITEST',
  /** The current directory cannot host the demo's copy (inside node_modules/, or outside the project). */
  WRONG_DIRECTORY: 'E_DEMO_WRONG_DIRECTORY',
} as const satisfies Record<string, EnergyErrorCode>

/** The folder under the current directory that an installed package's demo runs in and writes to. */
export const DEMO_DIR = 'vitest-energy-demo'

const HERE = dirname(fileURLToPath(import.meta.url))

/** Where the demo runs Vitest and what it writes where. All paths absolute. */
export interface DemoLayout {
  /** Vitest's `--root`: the example tests, or the copy of them the demo runs. Everything is written under it. */
  readonly suite: string
  /** The package's example-app-tests/, copied into `suite` before each run; absent when run in place. */
  readonly copyFrom?: string
  /** The fixed build's JSON report (the regression check's baseline). */
  readonly fixedReport: string
  /** The current build's JSON report. */
  readonly report: string
  /** Failed energy tests' raw data (the plugin's default `artifactsDir`, under `suite`). */
  readonly artifacts: string
}

/**
 * Pure: where the demo runs and writes. A checkout of the repository runs example-app-tests/ in
 * place, as `npm run demo` always has (its outputs are git-ignored); an installed package (one
 * inside node_modules/) copies them to `<cwd>/vitest-energy-demo/` and writes only there.
 */
export function demoLayout(packageRoot: string, cwd: string): DemoLayout {
  const examples = join(packageRoot, 'example-app-tests')
  if (!isInNodeModules(packageRoot)) {
    const outDir = join(packageRoot, '.vitest-energy')
    return {
      suite: examples,
      fixedReport: join(outDir, 'demo-fixed-build.json'),
      report: join(outDir, 'demo-report.json'),
      artifacts: join(examples, '.vitest-energy', 'artifacts'),
    }
  }
  const suite = join(cwd, DEMO_DIR)
  if (isInNodeModules(suite)) {
    throw wrongDirectory(
      `'${cwd}' is inside node_modules/, and the demo writes its results under the current directory`,
    )
  }
  return {
    suite,
    copyFrom: examples,
    fixedReport: join(suite, 'demo-fixed-build.json'),
    report: join(suite, 'demo-report.json'),
    artifacts: join(suite, '.vitest-energy', 'artifacts'),
  }
}

function isInNodeModules(path: string): boolean {
  return path.split(/[\\/]/).includes('node_modules')
}

function wrongDirectory(message: string): EnergyError {
  return new EnergyError({
    code: DemoErrors.WRONG_DIRECTORY,
    message,
    hint: 'Run `npx vitest-energy demo` in the folder of the project you installed vitest-energy in (npm i -D vitest-energy vitest).',
  })
}

/** The repository (or installed package) root: the nearest folder with example-app-tests/. */
function packageRoot(): string {
  let dir = HERE
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'example-app-tests', 'vitest.config.ts'))) return dir
    dir = dirname(dir)
  }
  throw new EnergyError({
    code: DemoErrors.MISSING,
    message: 'the example app tests (example-app-tests/) are not in this installation',
    hint: 'Run the demo from a clone of the vitest-energy repository: npm ci && npm run demo',
  })
}

/**
 * Vitest's CLI script, resolved from the suite like the suite's own imports. Those imports of
 * `vitest-energy` must reach this very package: a copy outside the project would find none (or
 * another install).
 */
export function demoVitestScript(layout: DemoLayout, root: string): string {
  const from = createRequire(join(layout.suite, 'package.json'))
  const resolveFrom = (specifier: string): string | undefined => {
    try {
      return from.resolve(specifier)
    } catch {
      return undefined
    }
  }
  const self = resolveFrom('vitest-energy/package.json')
  if (self === undefined || realpathSync(dirname(self)) !== realpathSync(root)) {
    throw wrongDirectory(
      `the demo's copy of the example tests (${layout.suite}) cannot import this vitest-energy (${root}): the current directory is not in the project that has it installed`,
    )
  }
  const vitest = resolveFrom('vitest/package.json')
  if (vitest === undefined) {
    throw new EnergyError({
      code: DemoErrors.NO_VITEST,
      message: `vitest is not installed where the demo runs (${layout.suite})`,
      hint: 'Install it next to vitest-energy, whose peer dependency it is: npm i -D vitest',
    })
  }
  // vitest's package.json does not export its bin script: locate the package, then the file.
  return join(dirname(vitest), 'vitest.mjs')
}

/** How a path is shown: relative to the current directory when it is under it. */
function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path)
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? path : `.${sep}${rel}`
}

export const demoCommand: CliCommand = {
  name: 'demo',
  summary: 'run the example app’s energy tests on the virtual device',
  usage: `Usage: vitest-energy demo

Runs the example app's tests (example-app-tests/) with --reporter=energy on the virtual device.
From an installed package they are copied to ./${DEMO_DIR}/ (refreshed on every run) and run
there: the JSON reports and any raw data are written under that folder, never into node_modules/.
`,
  async run(_args, io) {
    const root = packageRoot()
    const layout = demoLayout(root, io.cwd)
    const vitest = demoVitestScript(layout, root)
    if (layout.copyFrom !== undefined) cpSync(layout.copyFrom, layout.suite, { recursive: true })
    // No config bundle in node_modules/.vite-temp, no results cache in <root>/node_modules/.vite.
    const common = ['run', '--root', layout.suite, '--configLoader', 'runner', '--no-cache']
    io.out(
      [
        'vitest-energy demo: the Trails hiking app on two simulated phones (no phone needed).',
        ...(layout.copyFrom === undefined
          ? []
          : [`The example tests are copied to ${shown(layout.suite, io.cwd)} and run there.`]),
        '',
        '1/2 Measuring the fixed build of the app (the regression check compares with it)…',
        '',
      ].join('\n'),
    )
    const fixed = await runVitest(
      vitest,
      [
        ...common,
        '--reporter=dot',
        `--outputFile.energy=${layout.fixedReport}`,
        '--reporter=energy',
      ],
      { TRAILS_BUILD: 'fixed' },
      io,
      'capture',
    )
    if (fixed.code !== 0) {
      io.err(fixed.output)
      io.err('\nvitest-energy demo: measuring the fixed build failed (output above).\n')
      return fixed.code
    }
    io.out(
      [
        "2/2 The current build: twelve UI tests drive the app through Appium. Five catch the app's",
        'deliberate energy bugs and are expected to fail ("fails: …"); the energy report follows.',
        '',
      ].join('\n'),
    )
    const current = await runVitest(
      vitest,
      [
        ...common,
        '--reporter=default',
        '--reporter=energy',
        `--outputFile.energy=${layout.report}`,
      ],
      { TRAILS_BASELINE: layout.fixedReport },
      io,
      'inherit',
    )
    io.out(
      [
        '',
        `JSON report: ${shown(layout.report, io.cwd)} (the fixed build's: ${shown(layout.fixedReport, io.cwd)})`,
        ...(existsSync(layout.artifacts)
          ? [`Raw data of failed energy tests: ${shown(layout.artifacts, io.cwd)}`]
          : []),
        '',
      ].join('\n'),
    )
    return current.code
  },
}

async function runVitest(
  vitest: string,
  args: readonly string[],
  env: Record<string, string>,
  io: CliIo,
  stdio: 'inherit' | 'capture',
): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [vitest, ...args], {
      stdio: [
        'ignore',
        stdio === 'inherit' ? 'inherit' : 'pipe',
        stdio === 'inherit' ? 'inherit' : 'pipe',
      ],
      env: {
        ...process.env,
        FORCE_COLOR: process.env['FORCE_COLOR'] ?? (process.stdout.isTTY ? '1' : '0'),
        ...env,
      },
    })
    let output = ''
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    io.signal.addEventListener('abort', () => child.kill('SIGINT'), { once: true })
    child.once('error', reject)
    child.once('exit', (status) => resolve({ code: status ?? 1, output }))
  })
}
