// A regression check between builds: scrolling the feed on the current build (with the slow loop
// in ElevationProfile.smooth) against the fixed build's repetitions, read from the fixed build's
// JSON report (TRAILS_BASELINE; the demo measures it first) with runsFromReport(). Compared on the CPU rails with
// Mann–Whitney: the slow loop is CPU work, and the screen's energy is the same in both builds.
import { expect, runsFromReport, test } from 'vitest-energy'
import { energyBug } from './energy-bug.js'
import { freshAppPerTest } from './fresh-app.js'

freshAppPerTest()

const NAME = 'scrolling the feed does not regress from the fixed build'
const REPEATS = 5

async function scrollRepeatedly({
  driver,
  energy,
}: Parameters<Parameters<typeof energyBug>[1]>[0]) {
  await driver.$('~feed').click()
  return energy.repeat(
    REPEATS,
    async () => {
      await driver.$('~feed-list').click()
      await driver.pause(400)
    },
    { warmup: 1, settleMs: 300, label: 'scroll' },
  )
}

const baselineFile = process.env['TRAILS_BASELINE']

if (process.env['TRAILS_BUILD'] === 'fixed') {
  // Measuring the fixed build: record the repetitions for the regression check.
  test(NAME, async ({ driver, energy }) => {
    const runs = await scrollRepeatedly({ driver, energy })
    expect(runs.runs).toHaveLength(REPEATS)
  })
} else if (baselineFile === undefined) {
  test.skip(`${NAME} (needs TRAILS_BASELINE: the fixed build's report, which npx vitest-energy demo measures first)`, () => {})
} else {
  // Deliberate bug: the current build still has the slow loop the fixed build removed.
  energyBug(`${NAME} (fails: slow loop)`, async (context) => {
    const runs = await scrollRepeatedly(context)
    // The same test's repetitions in the fixed build's report, as the matcher takes them.
    expect(runs).toNotRegressFrom(runsFromReport(baselineFile, NAME), {
      scope: 'component:cpu',
      maxPct: 10,
      alpha: 0.01,
    })
  })
}
