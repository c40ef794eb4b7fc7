// Tests that catch one of the demo app's deliberate energy bugs: they must fail, and fail on an
// energy assertion. Any other failure (a locator, a device error) is not the expected one: it is
// printed and the test then reports "expected to fail" as broken, so the suite turns red.
import type { EnergyApi } from 'vitest-energy'
import { test } from 'vitest-energy'

interface BugContext {
  readonly driver: WebdriverIO.Browser
  readonly energy: EnergyApi
}

const ENERGY_ASSERTION =
  /^expect\((received|method|current)\)(\.not)?\.to(ConsumeLessThan|ConsumeAtMost|DrawLessThan|UseLessThanPercentOfBattery|NotRegressFrom|StayWithinBudget|BeGreen|BeRed)\(/

export function energyBug(name: string, body: (context: BugContext) => Promise<void>): void {
  // Vitest sets fixtures up from the destructured parameter, so name them here.
  test.fails(name, async ({ driver, energy }) => {
    try {
      await body({ driver, energy })
    } catch (error) {
      if (error instanceof Error && ENERGY_ASSERTION.test(error.message)) throw error
      console.error(`"${name}" failed, but not on an energy assertion:`, error)
    }
  })
}
