/**
 * `vitest-energy demo`: the newcomer's first command. Runs the Trails example app's UI tests
 * (example-app-tests/) with `--reporter=energy` on the bundled virtual device — two simulated
 * phones, an Appium server, real Vitest. In a checkout of the repository it runs them in place and
 * leaves the JSON reports in .vitest-energy/. From an installed package it runs a copy of them in
 * a temporary folder (its node_modules a link to the project's), so the project never holds test
 * files that its own `vitest run` or `jest` would collect, and keeps only what the run produced —
 * reports and raw data — in ./vitest-energy-demo/. Needs the compiled package (`npm run demo`
 * builds it first).
 */
import { spawn } from 'node:child_process'
import {
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
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

/** The folder under the current directory where an installed package's demo leaves its results. */
export const DEMO_DIR = 'vitest-energy-demo'

const HERE = dirname(fileURLToPath(import.meta.url))

/** Where the demo runs Vitest and what it writes where. All paths absolute. */
export interface DemoLayout {
  /** Vitest's `--root`: the example tests, or the temporary copy of them the demo runs. */
  readonly suite: string
  /**
   * An installed package's run: the package's example-app-tests/ copied to `suite`, the temporary
   * folder holding it (removed at the end), and the node_modules folder its `node_modules` links to.
   */
  readonly scratch?: {
    readonly copyFrom: string
    readonly dir: string
    readonly nodeModules: string
  }
  /** The fixed build's JSON report (the regression check's baseline). */
  readonly fixedReport: string
  /** The current build's JSON report. */
  readonly report: string
  /** The current build's HTML report. */
  readonly html: string
  /** Failed energy tests' raw data, where the run writes it (the plugin's default, under `suite`). */
  readonly artifacts: string
  /** Where that raw data is kept when the run writes it in `scratch` (else `artifacts`). */
  readonly keptArtifacts: string
}

/**
 * Pure: where the demo runs and writes. A checkout of the repository runs example-app-tests/ in
 * place, as `npm run demo` always has (its outputs are git-ignored); an installed package (one
 * inside node_modules/) runs a copy in `scratchDir` and keeps its results in
 * `<cwd>/vitest-energy-demo/`: no test file of the demo is ever under the current directory.
 */
export function demoLayout(packageRoot: string, cwd: string, scratchDir: string): DemoLayout {
  const examples = join(packageRoot, 'example-app-tests')
  if (!isInNodeModules(packageRoot)) {
    const outDir = join(packageRoot, '.vitest-energy')
    const artifacts = join(examples, '.vitest-energy', 'artifacts')
    return {
      suite: examples,
      fixedReport: join(outDir, 'demo-fixed-build.json'),
      report: join(outDir, 'demo-report.json'),
      html: join(examples, '.vitest-energy', 'report', 'index.html'),
      artifacts,
      keptArtifacts: artifacts,
    }
  }
  const out = join(cwd, DEMO_DIR)
  if (isInNodeModules(out)) {
    throw wrongDirectory(
      `'${cwd}' is inside node_modules/, and the demo writes its results under the current directory`,
    )
  }
  const suite = join(scratchDir, 'example-app-tests')
  return {
    suite,
    // The folder the package is installed in: npm's project/node_modules, pnpm's
    // node_modules/.pnpm/vitest-energy@…/node_modules (which links its peers, vitest among them).
    scratch: { copyFrom: examples, dir: scratchDir, nodeModules: dirname(packageRoot) },
    fixedReport: join(out, 'demo-fixed-build.json'),
    report: join(out, 'demo-report.json'),
    html: join(out, 'report.html'),
    artifacts: join(suite, '.vitest-energy', 'artifacts'),
    keptArtifacts: join(out, 'artifacts'),
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
From an installed package they run from a temporary copy, so your project never holds test files
of the demo (your own vitest or jest run collects none); the reports and any raw data are kept in
./${DEMO_DIR}/, never in node_modules/. The tests themselves: node_modules/vitest-energy/example-app-tests/.
`,
  async run(_args, io) {
    const root = packageRoot()
    const scratchDir = isInNodeModules(root)
      ? mkdtempSync(join(tmpdir(), 'vitest-energy-demo-'))
      : undefined
    try {
      const layout = demoLayout(root, io.cwd, scratchDir ?? '')
      if (layout.scratch !== undefined) prepareScratch(layout, layout.scratch)
      return await runDemo(layout, demoVitestScript(layout, root), io)
    } finally {
      if (scratchDir !== undefined) rmSync(scratchDir, { recursive: true, force: true })
    }
  },
}

/** The temporary copy of the tests, whose imports reach the project's packages through a link. */
function prepareScratch(layout: DemoLayout, scratch: NonNullable<DemoLayout['scratch']>): void {
  cpSync(scratch.copyFrom, layout.suite, { recursive: true })
  // ES modules, as in the repository (the config and tests are written as such).
  writeFileSync(join(scratch.dir, 'package.json'), '{ "private": true, "type": "module" }\n')
  // A junction on Windows: no privilege needed.
  symlinkSync(scratch.nodeModules, join(scratch.dir, 'node_modules'), 'junction')
  mkdirSync(dirname(layout.report), { recursive: true })
}

async function runDemo(layout: DemoLayout, vitest: string, io: CliIo): Promise<number> {
  // No results cache in <root>/node_modules/.vite.
  const common = ['run', '--root', layout.suite, '--no-cache']
  // The example config keeps raw data where TRAILS_ARTIFACTS says (the temporary copy is removed).
  const artifactsEnv: Record<string, string> =
    layout.keptArtifacts === layout.artifacts ? {} : { TRAILS_ARTIFACTS: layout.keptArtifacts }
  io.out(
    [
      'vitest-energy demo: the Trails hiking app on two simulated phones (no phone needed).',
      '',
      '1/2 Measuring the fixed build of the app (the regression check compares with it)…',
      '',
    ].join('\n'),
  )
  const fixed = await runVitest(
    vitest,
    [...common, '--reporter=dot', `--outputFile.energy=${layout.fixedReport}`, '--reporter=energy'],
    { TRAILS_BUILD: 'fixed', ...artifactsEnv },
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
      '',
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
      `--outputFile.energy-html=${layout.html}`,
    ],
    { TRAILS_BASELINE: layout.fixedReport, ...artifactsEnv },
    io,
    'inherit',
  )
  const installed = layout.scratch !== undefined
  io.out(
    [
      '',
      installed
        ? `The demo's results are in ${shown(dirname(layout.report), io.cwd)}${sep}: nothing else in this project changed.`
        : 'Where the results went:',
      `  HTML report   ${shown(layout.html, io.cwd)}`,
      `  JSON report   ${shown(layout.report, io.cwd)} (the fixed build's: ${shown(layout.fixedReport, io.cwd)})`,
      ...(existsSync(layout.keptArtifacts)
        ? [`  Raw data      ${shown(layout.keptArtifacts, io.cwd)} (the failed energy tests')`]
        : []),
      ...(installed && layout.scratch
        ? [
            `  The tests     ${shown(layout.scratch.copyFrom, io.cwd)} (read them there; copy one into your project to start)`,
          ]
        : []),
      '',
    ].join('\n'),
  )
  return current.code
}

/** How a test's progress line starts outside a terminal (src/session/progress.ts). */
const PROGRESS_PREFIX = '  ⋯ '

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
    // A captured run still shows its progress lines (`  ⋯ test: phase`), so its wait is not silent.
    let partial = ''
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr?.on('data', (chunk: Buffer) => {
      const text = chunk.toString()
      output += text
      const lines = (partial + text).split('\n')
      partial = lines.pop() ?? ''
      for (const line of lines) if (line.startsWith(PROGRESS_PREFIX)) io.out(`${line}\n`)
    })
    io.signal.addEventListener('abort', () => child.kill('SIGINT'), { once: true })
    child.once('error', reject)
    child.once('exit', (status) => resolve({ code: status ?? 1, output }))
  })
}
