/**
 * Tests whose automatic window's end is read in the background (option `windowEnd`): the next
 * tests run meanwhile, and the test file's end (the setup file's `afterAll`) waits for them. A
 * test's own meta has reached the reporter by then, so their energy travels in the file's meta
 * (`energyBehind`, by test id); a window that could not be read fails the file, naming its test
 * (the test itself has passed already, and the file's error is what fails the run).
 */
import type { RunnerTestCase, RunnerTestFile } from 'vitest'
import { EnergyError, isEnergyError } from '../model/index.js'
import type { DeviceSession } from '../session/device-session.js'
import type { WindowEndBehind } from '../session/test-energy.js'

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
  const failed = entries.filter((e) => e.behind.error() !== undefined)
  const first = failed[0]
  if (first === undefined) return
  const error = first.behind.error()
  const cause = isEnergyError(error) ? error : undefined
  const more = failed.length > 1 ? ` (and ${failed.length - 1} more test(s) of this file)` : ''
  throw new EnergyError({
    code: cause?.code ?? 'E_WINDOW_FAILED',
    message: `the energy window of '${first.task.name}' could not be read after the test ended${more}: ${plainMessage(error)}`,
    hint:
      cause?.hint ??
      "See the message; the test's own result stands. windowEnd: 'test' reads each window before its test ends, and fails that test instead.",
    ...(cause === undefined ? { cause: error } : {}),
  })
}

/** What happened, without the code and hint an `EnergyError`'s message carries around it. */
function plainMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  if (!isEnergyError(error)) return error.message
  return (error.message.replace(/^\[[A-Z0-9_]+\] /, '').split('\n  → ')[0] ?? '').trim()
}
