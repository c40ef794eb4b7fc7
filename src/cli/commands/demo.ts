/**
 * `vitest-energy demo`: the newcomer's first command. Runs the Trails example app's UI tests
 * (example-app-tests/) with `--reporter=energy` on the bundled virtual device — two simulated
 * phones, an Appium server, real Vitest — and leaves the JSON report in .vitest-energy/.
 * Needs the compiled package (`npm run demo` builds it first).
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { EnergyError } from '../../model/index.js'
import type { CliCommand } from '../_command.js'

const HERE = dirname(fileURLToPath(import.meta.url))

/** The repository (or installed package) root: the nearest folder with example-app-tests/. */
function packageRoot(): string {
  let dir = HERE
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'example-app-tests', 'vitest.config.ts'))) return dir
    dir = dirname(dir)
  }
  throw new EnergyError({
    code: 'E_DEMO_MISSING',
    message: 'the example app tests (example-app-tests/) are not in this installation',
    hint: 'Run the demo from a clone of the vitest-energy repository: npm ci && npm run demo',
  })
}

export const demoCommand: CliCommand = {
  name: 'demo',
  summary: 'run the example app’s energy tests on the virtual device',
  usage:
    'Usage: vitest-energy demo\n\nRuns example-app-tests/ with --reporter=energy on the virtual device.\n',
  async run(_args, io) {
    const root = packageRoot()
    // vitest's package.json does not export its bin script: locate the package, then the file.
    const vitest = join(
      dirname(createRequire(join(root, 'package.json')).resolve('vitest/package.json')),
      'vitest.mjs',
    )
    const outDir = join(root, '.vitest-energy')
    const fixedReport = join(outDir, 'demo-fixed-build.json')
    const report = join(outDir, 'demo-report.json')
    const suite = join(root, 'example-app-tests')
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
      [
        'run',
        '--root',
        suite,
        '--reporter=dot',
        `--outputFile.energy=${fixedReport}`,
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
        'run',
        '--root',
        suite,
        '--reporter=default',
        '--reporter=energy',
        `--outputFile.energy=${report}`,
      ],
      { TRAILS_BASELINE: fixedReport },
      io,
      'inherit',
    )
    io.out(`\nJSON report: ${relative(io.cwd, report) || report}\n`)
    return current.code
  },
}

async function runVitest(
  vitest: string,
  args: readonly string[],
  env: Record<string, string>,
  io: Parameters<CliCommand['run']>[1],
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
