// The Trails demo app's UI tests with energy assertions. On a fresh machine they run on the
// bundled virtual device; to run them on a phone, see docs/real-devices.md.
//
// TRAILS_BUILD=fixed runs them against the fixed build of the app model (models/trails-fixed.json:
// the slow loop in ElevationProfile.smooth removed), whose JSON report the regression check in
// regression.test.ts compares the current build with (`npm run demo` does both).
import { basename } from 'node:path'
import { fileURLToPath } from 'node:url'
import { defineConfig } from 'vitest/config'
import { BaseSequencer, type TestSpecification } from 'vitest/node'
import { energy } from 'vitest-energy/plugin'

const fixedBuild = process.env['TRAILS_BUILD'] === 'fixed'

// The order in which the files start. The two phones' workers take them one at a time, each the
// next one when it finishes one. Without timings from an earlier run Vitest starts the biggest
// files first, and sync.test.ts, the longest (≈ 10 s of waiting on the radio), is the smallest:
// started last, it kept one phone busy ≈ 6 s after the other had finished. In this order the
// phones take about as long: the first regression, settings, export; the second feed, map, sync.
// regression.test.ts goes first, so it runs on the first phone, the one the fixed build's run
// measures on; sync.test.ts goes last on its phone, so no file finds its radio still on.
const ORDER = [
  'regression.test.ts',
  'feed.test.ts',
  'map.test.ts',
  'settings.test.ts',
  'sync.test.ts',
  'export.test.ts',
]

class InOrder extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // A file not in ORDER starts after those in it.
    const rank = (file: TestSpecification) => {
      const at = ORDER.indexOf(basename(file.moduleId))
      return at === -1 ? ORDER.length : at
    }
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b))
  }
}

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
    sequence: { sequencer: InOrder },
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
})
