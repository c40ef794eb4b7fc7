/**
 * `vitest-energy/jest-global-teardown` (Jest's `globalTeardown`): stops what the global setup
 * started — Appium, the virtual device — and removes the run's folder and phone locks.
 */
import { endRun } from './global-setup.js'

export default async function globalTeardown(): Promise<void> {
  await endRun()
}
