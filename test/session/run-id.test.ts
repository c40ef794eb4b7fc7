// The id that makes shards of one run share each phone's idle baseline through the lease store.
import { expect, test } from 'vitest'
import { runId } from '../../src/session/run-setup.js'

test('VITEST_ENERGY_RUN_ID, else the CI pipeline’s own id, else none', () => {
  expect(runId({ VITEST_ENERGY_RUN_ID: 'nightly-42', GITHUB_RUN_ID: '7' })).toBe('nightly-42')
  expect(runId({ GITHUB_RUN_ID: '7', GITHUB_RUN_ATTEMPT: '2' })).toBe('github-7-2')
  expect(runId({ GITHUB_RUN_ID: '7' })).toBe('github-7-1')
  expect(runId({ CI_PIPELINE_ID: '123' })).toBe('gitlab-123')
  expect(runId({ VITEST_ENERGY_RUN_ID: '' })).toBeUndefined()
  expect(runId({})).toBeUndefined()
})
