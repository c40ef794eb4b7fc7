// The Trails demo app's UI tests with energy assertions. On a fresh machine they run on the
// bundled virtual device; to run them on a phone, see docs/real-devices.md.
import { defineConfig } from 'vitest/config'
import { energy } from 'vitest-energy/plugin'

export default defineConfig({
  plugins: [
    energy({
      app: 'com.example.trails',
      device: process.env['VITEST_ENERGY_DEVICE'] ?? 'auto',
      baselineMs: 2000,
      batteryCapacityMah: 4614, // Pixel 6, the virtual device's power profile
      classify: true,
      virtualDevice: { devices: 2 },
    }),
  ],
  test: {
    include: ['*.test.ts'],
    // One worker per simulated phone: files run in parallel, windows never overlap on a phone.
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
