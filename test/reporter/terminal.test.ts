// The terminal renderer on hand-built reports (the e2e tests cover it inside real Vitest runs).
import { expect, test } from 'vitest'
import type { ReportClassification } from '../../reporter/classification.js'
import type { EnergyReport } from '../../reporter/report.js'
import { plainScreen } from '../../reporter/screen.js'
import { renderTerminal } from '../../reporter/terminal.js'
import { failedResult } from '../../src/vitest/window.js'
import { EnergyError } from '../../src/model/index.js'

const unplugged = {
  file: 'a.test.ts',
  name: 'unplugged',
  state: 'failed',
  results: [
    failedResult(
      'unplugged',
      new EnergyError({
        code: 'E_NO_DEVICE',
        message: 'device vdev-0001: adb server on 127.0.0.1:5037 has no device vdev-0001',
        hint: 'Plug the phone in again.',
      }),
    ),
  ],
}

const summary: EnergyReport['summary'] = {
  tests: 1,
  windows: 1,
  measuredWindows: 0,
  failedWindows: 1,
  totalNetEnergyJ: 0,
  totalGrossEnergyJ: 0,
  worst: [],
  sources: ['odpm'],
  warnings: 0,
}

test("the run's method, class and package lines put the app's own code before the platform's", () => {
  const method = (name: string, energyJ: number) => ({
    name,
    class: name.slice(0, name.lastIndexOf('.')),
    color: 'yellow' as const,
    energyJ,
    n11: 1,
    n10: 0,
    n01: 0,
    n00: 0,
  })
  const group = (name: string, energyJ: number) => ({
    name,
    color: 'yellow' as const,
    members: 1,
    energyJ,
  })
  const classification = {
    preset: 'couto2014',
    errorVector: 'power',
    excessive: [],
    thresholdW: null,
    methods: [
      method('android.os.Looper.loop', 3),
      method('android.app.ActivityThread.main', 3),
      method('com.example.trails.FeedAdapter.bind', 1),
    ],
    classes: [group('android.os.Looper', 3), group('com.example.trails.FeedAdapter', 1)],
    packages: [group('android.os', 3), group('com.example.trails', 1)],
    project: 'yellow',
  } as unknown as ReportClassification
  const out = renderTerminal(
    { schemaVersion: 1, tests: [unplugged], summary, classification } as unknown as EnergyReport,
    plainScreen,
  )
  expect(out).toMatch(/Methods {3}1\.00 J FeedAdapter\.bind.* · 3\.00 J Looper\.loop/)
  expect(out).toMatch(/Classes {3}FeedAdapter 1\.00 J.* · Looper 3\.00 J/)
  expect(out).toMatch(/Packages {2}com\.example\.trails 1\.00 J.* · android\.os 3\.00 J/)
})

test('a failed window prints its code once, its message and its hint', () => {
  const out = renderTerminal(
    { schemaVersion: 1, tests: [unplugged], summary } as unknown as EnergyReport,
    plainScreen,
  )
  expect(out).toContain(
    "energy window 'unplugged' failed: E_NO_DEVICE device vdev-0001: adb server on 127.0.0.1:5037 has no device vdev-0001",
  )
  expect(out).not.toContain('[E_NO_DEVICE]')
  expect(out).toContain('Plug the phone in again.')
})
