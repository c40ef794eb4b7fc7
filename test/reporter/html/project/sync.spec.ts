import { describe, expect, test } from 'vitest'
import { meta, method, window } from './_energy.js'

describe('sync', () => {
  test('syncing in the background', ({ task }) => {
    task.meta.energy = meta(
      window({
        label: 'syncing in the background',
        at: 30,
        durationS: 4,
        grossEnergyJ: 6,
        methods: [
          method('com.example.trails.sync.SyncService.run', 0.9, 1.6, 'red', 1.2),
          method('com.example.trails.net.Api.fetchTrails', 1.1, 0.2, 'yellow'),
          method('com.example.trails.db.TrailDao.insertAll', 0.5, 0, 'green'),
        ],
        warnings: [
          {
            code: 'W_UNDERSAMPLED',
            severity: 'warning',
            message: 'only 4 fuel-gauge samples in the window: the figure is coarse',
          },
        ],
      }),
    )
    expect(6 - 1, 'net energy').toBeLessThan(4.5)
  })

  test('export loses the phone', ({ task }) => {
    task.meta.energy = {
      schemaVersion: 1,
      results: [
        {
          schemaVersion: 1,
          status: 'failed',
          label: 'export loses the phone',
          error: {
            code: 'E_DEVICE_DISCONNECTED',
            message: 'emulator-5554 disconnected mid-window',
            hint: 'Check the USB cable, then re-run.',
          },
          warnings: [],
        },
      ],
    }
  })

  // A window abandoned when its test ended (energy.measure() not awaited): skipped, said why.
  test('a sync left running', ({ task }) => {
    task.meta.energy = {
      schemaVersion: 1,
      results: [
        {
          schemaVersion: 1,
          status: 'skipped',
          label: 'a sync left running',
          reason:
            'energy.measure() was not awaited: the test ended while it was still running; its window was abandoned',
        },
      ],
    }
    throw new Error(
      "[E_MEASURE_NOT_AWAITED] energy.measure() 'a sync left running' was not awaited",
    )
  })

  // The energy bug it is written to catch: Vitest counts it as passed, the report as ⚑. Of its
  // 2.50 J net, 600 mJ is the cellular tail the sync left on: not its own, so it ranks below
  // 'opening the feed' (2.00 J) among the hungriest tests.
  test.fails('the radio is quiet after a sync (fails: polling)', ({ task }) => {
    task.meta.energy = meta({
      ...window({ label: 'after the sync', at: 40, durationS: 2, grossEnergyJ: 3, methods: [] }),
      carriedOverJ: 0.6,
    })
    expect(3 - 1, 'net energy').toBeLessThan(0.1)
  })

  // Only energy.baseline(): the idle phone, which a test's energy leaves out.
  test('the idle phone', ({ task }) => {
    task.meta.energy = meta({
      ...window({ label: 'idle baseline', at: 45, durationS: 2, grossEnergyJ: 2.6, methods: [] }),
      idleBaseline: true,
    })
  })

  test.skip('sync on cellular', () => undefined)
  test.todo('sync conflicts')
})
