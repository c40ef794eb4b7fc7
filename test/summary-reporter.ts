// Prints one plain closing line, `N passed, N failed, N skipped`, after Vitest's own summary, so
// tools that read test counts from a run's last lines can read this project's.
import type { Reporter, TestModule } from 'vitest/node'

export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<unknown>,
  ): void {
    let passed = 0
    let failed = 0
    let skipped = 0
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state
        if (state === 'passed') passed++
        else if (state === 'failed') failed++
        else skipped++
      }
      // A file that failed outside its tests (collection, a beforeAll hook: its tests are then
      // skipped) counts as one failure, so the line never says 0 failed when Vitest fails the run.
      const anyFailed = [...module.children.allTests()].some((t) => t.result().state === 'failed')
      if (module.state() === 'failed' && !anyFailed) failed++
    }
    failed += unhandledErrors.length
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`)
  }
}
