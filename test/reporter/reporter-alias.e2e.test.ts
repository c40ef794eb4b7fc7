// `vitest --reporter=energy` in a real child process: the plugin makes the bare name resolvable,
// and `--outputFile.energy` sets the JSON path as for Vitest's built-in reporters.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'

const root = fileURLToPath(new URL('../fixtures/reporter-project/', import.meta.url))
const vitestBin = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))

async function runVitest(args: string[]): Promise<{ stdout: string; code: number }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [vitestBin, 'run', ...args], {
      cwd: root,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' },
    })
    return { stdout, code: 0 }
  } catch (error) {
    const e = error as { stdout: string; code: number }
    return { stdout: e.stdout, code: e.code }
  }
}

test('--reporter=energy --reporter=default prints the energy table and Vitest’s own result', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-alias-'))
  try {
    const out = join(dir, 'out', 'energy.json')
    const { stdout, code } = await runVitest([
      '--reporter=energy',
      '--reporter=default',
      `--outputFile.energy=${out}`,
      `--outputFile.energy-html=${join(dir, 'report.html')}`,
    ])
    expect(code, 'one fixture test fails on purpose').toBe(1)
    expect(stdout).toContain(' ENERGY  power: odpm')
    expect(stdout).toMatch(/opening the feed\s+·\s+2\.00 J net/)
    expect(stdout).toMatch(/Tests\s+1 failed \| 4 passed/)
    const report = JSON.parse(await readFile(out, 'utf8')) as EnergyReport
    expect(report.summary.measuredWindows).toBe(3)
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
