// The HTML report of a real run on the virtual device — test/fixtures/energy-project: the energy
// fixture, Appium, perfetto and simpleperf over adb, the reporter as a user runs it — opened in
// Chromium: no console errors, the overview's totals are the JSON report's, and every test with one
// measured window draws that window's sensor timeline and call tree as the JSON report has them.
// (browser.e2e.test.ts checks every view in three browsers on a project whose energy is built by
// hand; this is the same page on measured data.)
import { execFile } from 'node:child_process'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import type { EnergyReport } from '../../../reporter/report.js'
import { testHash } from './_project.js'
import { warningTally } from '../../../reporter/terminal.js'
import { formatJoules } from '../../../src/model/index.js'
import { ENGINES, type Browser } from './_browsers.js'
import { projectEnv } from '../../vitest/_project-env.js'

const root = fileURLToPath(new URL('../../fixtures/energy-project/', import.meta.url))
const vitestBin = fileURLToPath(new URL('../../../node_modules/vitest/vitest.mjs', import.meta.url))
const chromium = ENGINES.find((e) => e.name === 'Chromium')
const ci = process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== '0'

describe.skipIf(chromium?.missing !== undefined && !ci)(
  'the HTML report of a virtual-device run, in Chromium',
  () => {
    let dir = ''
    let report: EnergyReport
    let html = ''
    let browser: Browser | undefined

    beforeAll(async () => {
      if (chromium === undefined || chromium.missing !== undefined)
        throw new Error(`CI needs Chromium for the HTML report tests: ${chromium?.missing}`)
      dir = await mkdtemp(join(tmpdir(), 'vitest-energy-html-run-'))
      html = join(dir, 'index.html')
      const json = join(dir, 'energy.json')
      // A failing test is part of the project (it shows a failure's row): the exit code is not
      // what this test is about, the report is.
      await new Promise<void>((resolve) =>
        execFile(
          process.execPath,
          [
            vitestBin,
            'run',
            '--reporter=energy',
            `--outputFile.energy=${json}`,
            `--outputFile.energy-html=${html}`,
          ],
          {
            cwd: root,
            env: projectEnv(dir),
          },
          () => resolve(),
        ),
      )
      report = JSON.parse(await readFile(json, 'utf8')) as EnergyReport
      browser = await chromium.launch()
    }, 300_000)

    afterAll(async () => {
      await browser?.close()
      await rm(dir, { recursive: true, force: true })
    })

    test('overview totals, and each single-window test’s timeline and call tree', async () => {
      const page = await (browser as Browser).newPage()
      const url = pathToFileURL(html).href
      await page.goto(`${url}#overview`)
      await page.waitForSelector('html[data-ready=true]')
      const totals = await page.locator('#totals').innerText()
      expect(totals).toContain(formatJoules(report.summary.totalNetEnergyJ))
      expect(totals).toContain(formatJoules(report.summary.totalGrossEnergyJ))
      // Warnings counted as the terminal counts them; notes (severity info) apart.
      const { warnings, notes } = warningTally(report)
      expect(totals).toMatch(new RegExp(`warnings\\s+${warnings}\\s`, 'i'))
      if (notes > 0) expect(totals).toContain(`and ${notes} note${notes === 1 ? '' : 's'}`)
      else expect(totals).not.toContain(' note')
      let checked = 0
      for (const t of report.tests) {
        // A test with several windows shows one at a time (failed ones first): not compared here.
        const w = t.results[0]
        if (t.results.length !== 1 || w?.status !== 'measured' || w.timeline === undefined) {
          // A failed window says its code and hint once (the message may carry both already).
          if (w?.status === 'failed' || t.results.some((r) => r.status === 'failed')) {
            await page.goto(`${url}${testHash(t)}`)
            const failed = t.results.find((r) => r.status === 'failed')
            if (failed?.status === 'failed' && (await page.locator('#window pre').count()) > 0) {
              const text = await page.locator('#window pre').first().innerText()
              expect(text.split(`[${failed.error.code}]`)).toHaveLength(2)
              if (failed.error.hint !== '') expect(text.split(failed.error.hint)).toHaveLength(2)
            }
          }
          continue
        }
        await page.goto(`${url}${testHash(t)}`)
        await page.waitForSelector('#power-timeline canvas')
        expect(await page.locator('#test-name').innerText()).toBe(t.name)
        const chart = await page
          .locator('#power-timeline')
          .evaluate((el) => ({ ...(el as HTMLElement).dataset }))
        expect(Number(chart['buckets']), t.name).toBe(w.timeline.edgesS.length - 1)
        const railsJ = w.rails.reduce((sum, rail) => sum + rail.energyJ, 0)
        expect(Math.abs(Number(chart['areaJ']) - railsJ) / railsJ, t.name).toBeLessThan(1e-3)
        if (w.callTree !== undefined && w.netEnergyJ > 0) {
          await page.waitForSelector('#flame .node')
          const rootJ = await page
            .locator('#flame')
            .evaluate((el) => (el as HTMLElement).dataset['rootJ'])
          expect(Math.abs(Number(rootJ) - w.netEnergyJ) / w.netEnergyJ, t.name).toBeLessThan(1e-5)
        }
        checked++
      }
      expect(checked).toBeGreaterThan(0)
      const problems = await page.problems()
      await page.close()
      expect(problems).toEqual([])
    })
  },
)
