// The Jest environment's `test_done`: the phone's lease is released and the raw data settled
// whatever happens to the test's side record; a record that cannot be written (the reporter's
// folder gone with its parent, or not writable) is the test's error, E_REPORT_OUTPUT_IO — where it
// escaped the handler and left the phone leased for the rest of the worker's run.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Circus } from '@jest/types'
import { afterEach, beforeEach, expect, test, vi } from 'vitest'
import { JEST_SIDE_DIR_ENV } from '../../reporter/jest-side-files.js'
import EnergyEnvironment from '../../src/jest/environment.js'
import { EnergyError } from '../../src/model/index.js'
import { scriptedPhoneFields, testEnergyOn } from '../session/_scripted-phone.js'

let root = ''
let before: string | undefined
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'vitest-energy-jest-lease-'))
  before = process.env[JEST_SIDE_DIR_ENV]
})
afterEach(async () => {
  if (before === undefined) Reflect.deleteProperty(process.env, JEST_SIDE_DIR_ENV)
  else process.env[JEST_SIDE_DIR_ENV] = before
  await rm(root, { recursive: true, force: true })
})

/**
 * An environment in the middle of a test, as `test_started` leaves it (its constructor and setup,
 * which need a run and a phone, are not what this is about), with a lease that counts releases.
 */
function environmentRunning(name: string) {
  const energy = testEnergyOn(
    { ...scriptedPhoneFields, measure: () => undefined, abandonWindow: async () => undefined },
    name,
    'feed.test.js',
  )
  const settle = vi.spyOn(energy, 'settle')
  const lease = { releases: 0, release: async () => void lease.releases++ }
  const entry = {
    name,
    parent: { name: 'ROOT_DESCRIBE_BLOCK', parent: undefined },
    errors: [] as unknown[],
    invocations: 1,
  } as unknown as Circus.TestEntry
  const environment = Object.create(EnergyEnvironment.prototype) as EnergyEnvironment
  Object.assign(environment, {
    testPath: join(root, 'feed.test.js'),
    current: { test: entry, lease, energy, bodyStarted: false },
  })
  const done = (): Promise<void> =>
    environment.handleTestEvent(
      { name: 'test_done', test: entry } as Circus.Event,
      { unhandledErrors: [] } as unknown as Circus.State,
    )
  return { done, entry, lease, settle }
}

test('a side record that cannot be written fails the test with E_REPORT_OUTPUT_IO, and the lease is released', async () => {
  // A folder under a regular file: mkdir fails (ENOTDIR) whoever runs the test, root included.
  const file = join(root, 'not-a-folder')
  await writeFile(file, '')
  process.env[JEST_SIDE_DIR_ENV] = join(file, 'side')
  const { done, entry, lease, settle } = environmentRunning('opens the feed')
  await done()
  expect(lease.releases, 'the phone is free for the next test').toBe(1)
  expect(settle).toHaveBeenCalledWith(true)
  expect(entry.errors).toHaveLength(1)
  const error = entry.errors[0]
  expect(error).toBeInstanceOf(EnergyError)
  expect(error).toMatchObject({ code: 'E_REPORT_OUTPUT_IO' })
  expect((error as EnergyError).message).toContain(
    "could not hand the energy of 'opens the feed' to the Jest energy reporter",
  )
  expect((error as EnergyError).message).toContain(join(file, 'side'))
})

test('a side record written: the test passes, its record is there, the lease is released once', async () => {
  const dir = join(root, 'side')
  process.env[JEST_SIDE_DIR_ENV] = dir
  const { done, entry, lease, settle } = environmentRunning('opens the feed')
  await done()
  expect(entry.errors).toEqual([])
  expect(lease.releases).toBe(1)
  expect(settle).toHaveBeenCalledWith(false)
  const [name] = await readdir(dir)
  const record = JSON.parse(await readFile(join(dir, name ?? ''), 'utf8')) as { name: string }
  expect(record.name).toBe('opens the feed')
})
