// What a scripted phone (a stand-in for DeviceSession in TestEnergy's tests) shares: its options,
// and a test's energy on it.
import type { DeviceSession } from '../../src/session/device-session.js'
import { TestEnergy } from '../../src/session/test-energy.js'

export const scriptedOptions = {
  autoWindow: false,
  artifacts: 'never',
  checkBudgets: false,
  budgets: 'energy-budgets.json',
  inconclusive: 'fail',
  repeats: 3,
}

/** A test's energy on `phone`, recording its matchers' checks. */
export function testEnergyOn(phone: object, name: string, file: string): TestEnergy {
  const energy = new TestEnergy(
    phone as unknown as DeviceSession,
    { filePath: `/p/${file}`, file, name, fullName: name },
    { updateBudgets: () => false },
  )
  energy.prepare()
  return energy
}
