/**
 * Added to every test file by the plugin. Vitest resolves automatic fixtures in `aroundEach`
 * hooks too, so this hook — registered without a timeout — makes the `phone` fixture take the
 * phone's lease before the test's `beforeEach` hooks and body start their timeouts: a test that
 * waits for another worker's test on the same phone waits as long as that test runs, and never
 * times out for it. Tests written with plain `vitest` (no vitest-energy fixtures) take no lease;
 * asking one of them for `energy` or `driver` fails with the import to write (./wrong-import.ts).
 */
import { aroundEach } from 'vitest'
import { guardPlainTest } from './wrong-import.js'

aroundEach(async (runTest, { task }) => {
  guardPlainTest(task)
  await runTest()
}, 0)
