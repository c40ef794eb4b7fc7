/**
 * Tests whose automatic window's end is read in the background (option `windowEnd`): the next
 * tests run meanwhile, and the test file's end (the setup file's `afterAll`) waits for them. A
 * test's own meta has reached the reporter by then, so their energy travels in the file's meta
 * (`energyBehind`, by test id); a window that could not be read fails the file, naming its test
 * (the test itself has passed already, and the file's error is what fails the run).
 */
import type { RunnerTestCase, RunnerTestFile } from 'vitest'
import type { DeviceSession } from '../session/device-session.js'
import { windowsLostError, type WindowEndBehind } from '../session/test-energy.js'

interface LeftBehind {
  readonly task: RunnerTestCase
  readonly device: DeviceSession
  readonly behind: WindowEndBehind
  /** Settles once the test's meta is final (its raw data kept or dropped too). */
  readonly done: Promise<void>
}

const byFile = new Map<string, LeftBehind[]>()

/** Remembers a test whose window's end is read in the background until its file ends. */
export function leaveBehind(entry: LeftBehind): void {
  const entries = byFile.get(entry.task.file.id) ?? []
  entries.push(entry)
  byFile.set(entry.task.file.id, entries)
}

/**
 * At a test file's end: waits for its tests' windows, puts their energy in the file's meta,
 * frees the phone, and throws when a window could not be read.
 */
export async function catchUpFile(file: RunnerTestFile): Promise<void> {
  const entries = byFile.get(file.id) ?? []
  byFile.delete(file.id)
  if (entries.length === 0) return
  await Promise.all(entries.map(async (e) => e.done))
  for (const device of new Set(entries.map((e) => e.device))) await device.catchUp()
  const behind: Record<string, NonNullable<RunnerTestCase['meta']['energy']>> = {}
  for (const { task } of entries) if (task.meta.energy) behind[task.id] = task.meta.energy
  file.meta.energyBehind = { ...file.meta.energyBehind, ...behind }
  const error = windowsLostError(
    entries.map((e) => ({ test: e.task.name, error: e.behind.error() })),
  )
  if (error !== undefined) throw error
}
