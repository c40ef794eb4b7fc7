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

  test('prints every test on a line, and the detail of those that failed, or why it has none', () => {
    expect(out).toContain('energy.test.ts')
    expect(out).toMatch(/✓ opening the feed\s+·\s+2\.00 J net \(2\.50 J gross\)\n/)
    // The failed test's detail: methods, rails, its window's warnings, its failure.
    const failed = out.slice(out.indexOf('✗ export fails its budget'))
    expect(failed).toMatch(/^✗ export fails its budget\s+·\s+5\.50 J net \(6\.00 J gross\)\n/)
    expect(failed).toContain('methods 1.80 J FeedAdapter.bind ●red')
    expect(failed).toContain('CPU(LITTLE) 2.40 J')
    expect(failed).toContain('⚠ W_SLOW_SENSOR only 3 sensor updates')
    // Warnings once, by code, for the run.
    expect(out).toMatch(
      / Warnings {2}.*\n {3}⚠ W_SLOW_SENSOR ×3 {2}the power sensor updates too rarely/,
    )
    expect(out.match(/⚠ W_SLOW_SENSOR/g), 'the failed window and the summary').toHaveLength(2)
    expect(out).toContain("energy window 'device vanished' failed: E_DEVICE_DISCONNECTED")
    expect(out).toMatch(
      /✓ no energy here +no energy measured: the test does not use the energy fixture\n/,
    )
    expect(out).toMatch(/✓ device vanished +no energy measured: its energy window failed\n/)
    expect(out).toContain('       expected 6 to be less than 5')
  })

  test('verbose: every test with its detail, as before', async () => {
    const verbose = await runReporter(root, () => ({ verbose: true }))
    try {
      expect(verbose.out).toMatch(
        /✓ opening the feed\s+·\s+2\.00 J net\s+2\.50 J gross\s+1\.25 W\s+2\.00 s\n {7}methods 750 mJ FeedAdapter\.bind ●red\n {7}rails {3}gross CPU\(LITTLE\) 1\.00 J\n/,
      )
      expect(verbose.out.match(/⚠ W_SLOW_SENSOR only 3 sensor updates/g)).toHaveLength(3)
    } finally {
      await verbose.cleanup()
    }
  })

  test('summarizes totals and the hungriest tests', () => {
    // net = gross − 0.25 W × 2 s for each measured window: 2.0 + 3.5 + 5.5
    expect(out).toContain(
      'Energy    11.0 J net, 12.5 J gross over 3 windows in 4 tests · 1 failed · 3 warnings',
    )
    expect(out).toMatch(/Hungriest export fails its budget \(5\.50 J\)/)
  })

  test('writes the JSON report with the same figures', () => {
    expect(report.schemaVersion).toBe(4)
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
