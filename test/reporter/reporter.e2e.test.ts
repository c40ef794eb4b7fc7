import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { EnergyReport } from '../../reporter/report.js'
import { runReporter, type ReporterRun } from './_run.js'

const root = fileURLToPath(new URL('../fixtures/reporter-project/', import.meta.url))

describe('energy reporter in a real Vitest run', () => {
  let run: ReporterRun
  let out = ''
  let report: EnergyReport
  let markdown = ''

  beforeAll(async () => {
    run = await runReporter(root, (dir) => ({ markdown: join(dir, 'summary.md') }))
    ;({ out, report } = run)
    markdown = await readFile(join(run.dir, 'summary.md'), 'utf8')
  })

  afterAll(async () => {
    await run.cleanup()
  })

  test('prints every test, with figures, methods, rails and warnings, or why it has none', () => {
    expect(out).toContain('energy.test.ts')
    expect(out).toMatch(/✓ opening the feed\s+·\s+2\.00 J net\s+2\.50 J gross\s+1\.25 W\s+2\.00 s/)
    expect(out).toContain('FeedAdapter.bind ●red')
    expect(out).toContain('CPU(LITTLE) 1.00 J')
    expect(out).toContain('⚠ W_UNDERSAMPLED only 20 samples')
    expect(out).toMatch(/✗ export fails its budget/)
    expect(out).toContain("energy window 'device vanished' failed: E_DEVICE_DISCONNECTED")
    expect(out).toMatch(
      /✓ no energy here +no energy measured: the test does not use the energy fixture\n/,
    )
    expect(out).toMatch(/✓ device vanished +no energy measured: its energy window failed\n/)
    expect(out).toContain('       expected 6 to be less than 5')
  })

  test('summarizes totals and the hungriest tests', () => {
    // net = gross − 0.25 W × 2 s for each measured window: 2.0 + 3.5 + 5.5
    expect(out).toContain(
      'Energy  11.0 J net, 12.5 J gross over 3 windows in 4 tests · 1 failed · 3 warnings',
    )
    expect(out).toMatch(/Hungriest export fails its budget \(5\.50 J\)/)
  })

  test('writes the JSON report with the same figures', () => {
    expect(report.schemaVersion).toBe(2)
    expect(report.summary.totalNetEnergyJ).toBeCloseTo(11, 10)
    expect(report.tests.map((t) => [t.name, t.state])).toEqual([
      ['opening the feed', 'passed'],
      ['syncing <b>|pipes|</b> & "quotes"', 'passed'],
      ['export fails its budget', 'failed'],
      ['device vanished', 'passed'],
      ['no energy here', 'passed'],
    ])
    expect(report.tests[2]!.failure?.message).toBe('expected 6 to be less than 5')
  })

  test('escapes what it prints in markdown', () => {
    expect(markdown).toContain('syncing &lt;b&gt;\\|pipes\\|&lt;/b&gt; &amp; "quotes"')
    expect(markdown).not.toContain('<b>')
    expect(markdown).toContain('| ❌ | energy.test.ts › export fails its budget | 5.50 J |')
  })
})
