/**
 * Added to every test file by the plugin. Vitest resolves automatic fixtures in `aroundEach`
 * hooks too, so this hook — registered without a timeout — makes the `phone` fixture take the
 * phone's lease before the test's `beforeEach` hooks and body start their timeouts: a test that
 * waits for another worker's test on the same phone waits as long as that test runs, and never
 * times out for it. Tests written with plain `vitest` (no vitest-energy fixtures) take no lease;
 * asking one of them for `energy` or `driver` fails with the import to write (./wrong-import.ts).
 * Its `afterAll` waits, at each file's end, for the windows whose ends are read in the background
 * (./behind.ts).
 */
import { afterAll, aroundEach } from 'vitest'
import { expectedError } from '../session/call-site.js'
import { catchUpFile } from './behind.js'
import { guardPlainTest } from './wrong-import.js'

aroundEach(async (runTest, { task }) => {
  guardPlainTest(task)
  await runTest()
}, 0)

// The file's tests whose windows' ends are read in the background (option `windowEnd`): their
// energy reaches the reporter with the file, and a window that could not be read fails it.
// eslint-disable-next-line no-empty-pattern -- Vitest reads the context's fields from the pattern
afterAll(async ({}, suite) => {
  try {
    await catchUpFile(suite.file)
  } catch (error) {
    throw expectedError(error)
  }
}, 0)
