// What a scripted phone (a stand-in for DeviceSession in TestEnergy's tests) shares: its options,
// the fields TestEnergy reads besides `measure`, its windows, and a test's energy on it.
import { measuredResult, type MeasuredEnergyResult } from '../../src/model/index.js'
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

/** A scripted phone's fields apart from `measure` and `abandonWindow` (spread into each phone). */
export const scriptedPhoneFields = {
  serial: 'vdev-0001',
  options: scriptedOptions,
  idleWindowMs: 10,
  artifactSink: undefined,
  baseline: async () => ({ kind: 'none' as const }),
}

/** A 1 s window of the scripted phone: `grossEnergyJ` drawn over an idle level of `baselinePowerW`. */
export function scriptedWindow(
  label: string,
  grossEnergyJ: number,
  baselinePowerW: number,
): MeasuredEnergyResult {
  return measuredResult({
    label,
    window: { clock: 'boottime', startNs: 0, endNs: 1e9 },
    grossEnergyJ,
    baselinePowerW,
    components: [],
    rails: [],
    methods: [],
    sources: { power: 'odpm', sampleCount: 0 },
  })
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
