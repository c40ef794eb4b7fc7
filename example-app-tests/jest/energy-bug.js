// Tests that catch one of the demo app's deliberate energy bugs: they must fail, and fail on an
// energy assertion (Jest's `test.failing`). Any other failure (a locator, a device error) is
// printed and the test then passes its body, which `test.failing` reports as broken.
const ENERGY_ASSERTION =
  /^expect\((received|method|current)\)(\.not)?\.to(ConsumeLessThan|ConsumeAtMost|DrawLessThan|UseLessThanPercentOfBattery|NotRegressFrom|StayWithinBudget|BeGreen|BeRed)\(/

export function energyBug(name, body) {
  test.failing(name, async () => {
    try {
      await body()
    } catch (error) {
      if (error instanceof Error && ENERGY_ASSERTION.test(error.message)) throw error
      console.error(`"${name}" failed, but not on an energy assertion:`, error)
    }
  })
}
