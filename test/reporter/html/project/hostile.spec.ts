// Names and messages a test may carry: the report must show them as text, never run them.
import { test } from 'vitest'
import { HOSTILE, PIXEL_RAILS, meta, method, window } from './_energy.js'

test(HOSTILE, ({ task }) => {
  task.meta.energy = meta(
    window({
      label: HOSTILE,
      at: 40,
      durationS: 1,
      grossEnergyJ: 0.9,
      rails: PIXEL_RAILS,
      methods: [method('com.example.trails.settings.SettingsFragment.onCreateView', 0.2, 0.1)],
      warnings: [{ code: 'W_HOSTILE', severity: 'info', message: HOSTILE }],
    }),
  )
})

test('no energy here', () => undefined)
