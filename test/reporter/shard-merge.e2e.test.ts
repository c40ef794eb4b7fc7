// `--shard=1/2` and `--shard=2/2` with the blob reporter, then `--merge-reports --reporter=energy`:
// the energy data survives the blob round trip and the merged report equals a single run's.
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'

const root = fileURLToPath(new URL('../fixtures/reporter-project/sharded/', import.meta.url))
const vitestBin = fileURLToPath(new URL('../../node_modules/vitest/vitest.mjs', import.meta.url))

async function vitest(args: string[]): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, [vitestBin, 'run', ...args], {
    cwd: root,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' },
  })
  return stdout
}

function normalized(report: EnergyReport): EnergyReport {
  const key = (t: { file: string; name: string }): string => `${t.file}\u0000${t.name}`
  return { ...report, tests: [...report.tests].sort((a, b) => (key(a) < key(b) ? -1 : 1)) }
}

test('sharded blob reports merged with --reporter=energy give the same energy report as one run', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vitest-energy-shards-'))
  try {
    const blobs = join(dir, 'blobs')
    await vitest([
      '--shard=1/2',
      '--reporter=blob',
      `--outputFile.blob=${join(blobs, 'blob-1.json')}`,
    ])
    await vitest([
      '--shard=2/2',
      '--reporter=blob',
      `--outputFile.blob=${join(blobs, 'blob-2.json')}`,
    ])
    expect((await readdir(blobs)).sort()).toEqual(['blob-1.json', 'blob-2.json'])

    const merged = join(dir, 'merged.json')
    const html = `--outputFile.energy-html=${join(dir, 'report.html')}`
    const stdout = await vitest([
      `--merge-reports=${blobs}`,
      '--reporter=energy',
      `--outputFile.energy=${merged}`,
      html,
    ])
    expect(stdout).toContain(' ENERGY  power: fuel-gauge')
    const single = join(dir, 'single.json')
    await vitest(['--reporter=energy', `--outputFile.energy=${single}`, html])

    const a = JSON.parse(await readFile(merged, 'utf8')) as EnergyReport
    const b = JSON.parse(await readFile(single, 'utf8')) as EnergyReport
    expect(a.summary.tests).toBe(6)
    // net = gross − 0.5 W × 1 s: alpha 5.0 + 4.75, beta 4.0 + 3.75, gamma 5.0 + 4.75
    expect(a.summary.totalNetEnergyJ).toBeCloseTo(27.25, 10)
    expect(new Set(a.tests.map((t) => t.file))).toEqual(
      new Set(['alpha.test.ts', 'beta.test.ts', 'gamma.test.ts']),
    )
    expect(a.tests[0]!.results[0]).toMatchObject({
      status: 'measured',
      device: { model: 'Pixel 6' },
      methods: [{ attribution: 'sampling' }],
    })
    expect(normalized(a)).toEqual(normalized(b))
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})
