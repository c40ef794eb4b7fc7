// The Jest flavour of the Trails demo's UI tests (Jest 30, native ESM: run Jest with
// `node --experimental-vm-modules`). On a fresh machine they run on the bundled virtual device.
export default {
  // Every test gets the phone's lease, an energy window, and the `energy`, `driver` and `device`
  // globals; the options are the Vitest plugin's (docs/configuration.md).
  testEnvironment: 'vitest-energy/jest-environment',
  testEnvironmentOptions: {
    app: 'com.example.trails',
    device: process.env['VITEST_ENERGY_DEVICE'] ?? 'auto',
    baselineMs: 1500,
    batteryCapacityMah: 4614, // Pixel 6, the virtual device's power profile
    classify: true,
    virtualDevice: { devices: 2 },
  },
  // Starts the phones (or the virtual device) and Appium once per run, and stops them.
  globalSetup: 'vitest-energy/jest-global-setup',
  globalTeardown: 'vitest-energy/jest-global-teardown',
  // The energy table after Jest's own; the JSON report beside the HTML one.
  reporters: [
    'default',
    ['vitest-energy/jest-reporter', { outputFile: '.vitest-energy/report/energy.json' }],
  ],
  // One worker per simulated phone: files run in parallel, windows never overlap on a phone.
  maxWorkers: 2,
  transform: {},
}
