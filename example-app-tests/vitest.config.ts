// The Trails demo app's UI tests with energy assertions. On a fresh machine they run on the
// bundled virtual device; to run them on a phone, see docs/real-devices.md.
//
// TRAILS_BUILD=fixed runs them against the fixed build of the app model (models/trails-fixed.json:
// the slow loop in ElevationProfile.smooth removed), whose JSON report the regression check in
// regression.test.ts compares the current build with (`npm run demo` does both).
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { energy } from 'vitest-energy/plugin'

const fixedBuild = process.env['TRAILS_BUILD'] === 'fixed'

export default defineConfig({
  plugins: [
    energy({
      app: 'com.example.trails',
      device: process.env['VITEST_ENERGY_DEVICE'] ?? 'auto',
      baselineMs: 1500,
      batteryCapacityMah: 4614, // Pixel 6, the virtual device's power profile
      classify: true,
      // Set by `npx vitest-energy demo`, which runs a temporary copy of these tests.
      ...(process.env['TRAILS_ARTIFACTS'] ? { artifactsDir: process.env['TRAILS_ARTIFACTS'] } : {}),
      virtualDevice: {
        devices: 2,
        ...(fixedBuild
          ? { appModel: fileURLToPath(new URL('./models/trails-fixed.json', import.meta.url)) }
          : {}),
      },
    }),
  ],
  test: {
    include: fixedBuild ? ['regression.test.ts'] : ['*.test.ts'],
    // One worker per simulated phone: files run in parallel, windows never overlap on a phone.
    maxWorkers: 2,
    // A worker keeps its phone and its Appium session from one file to the next (Vitest's default
    // isolation makes both again per file, ≈ 4 s each: a new process, a new session). Every test
    // starts from a freshly launched app anyway (fresh-app.ts), and settings.test.ts puts the
    // brightness back.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
