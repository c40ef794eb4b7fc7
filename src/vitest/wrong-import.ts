/**
 * `test` imported from 'vitest' instead of 'vitest-energy' has no energy fixtures: `({ energy })`
 * would be `undefined` and the test would fail on `Cannot read properties of undefined`. In a
 * project using the plugin, the setup file gives such a test's context `energy` and `driver`
 * properties that fail with the fix, at the user's line.
 */
import { EnergyError } from '../model/index.js'
import { atUserLine } from '../session/call-site.js'

/** On the task of a test made by vitest-energy's `test` (set by its automatic `phone` fixture). */
const ENERGY_TEST = Symbol.for('vitest-energy.energyTest')

export function markEnergyTest(task: object): void {
  Object.defineProperty(task, ENERGY_TEST, { value: true, configurable: true })
}

/** Called for every test of a project using the plugin, before it runs. */
export function guardPlainTest(task: { readonly context: object }): void {
  if (ENERGY_TEST in task) return
  const context = task.context
  for (const name of ['energy', 'driver'] as const) {
    if (name in context) continue
    // Not enumerable: spreading or listing the context does not trip it.
    Object.defineProperty(context, name, {
      configurable: true,
      enumerable: false,
      get: () => {
        throw atUserLine(
          new EnergyError({
            code: 'E_WRONG_TEST_IMPORT',
            message: `this test has no \`${name}\` fixture: its \`test\` comes from 'vitest', not 'vitest-energy'`,
            hint: "Import both from vitest-energy: `import { test, expect } from 'vitest-energy'` (Vitest's test, with the energy, driver and phone fixtures).",
          }),
        )
      },
    })
  }
}
