// W_WAKELOCK_HELD from the locks `dumpsys power` lists: one warning per kind of lock.
import { expect, test } from 'vitest'
import { heldWakeLockWarnings } from '../../src/session/device-session.js'

const lock = (tag: string, pid: number, heldMs?: number) => ({
  level: 'PARTIAL_WAKE_LOCK',
  tag,
  pid,
  long: false,
  ...(heldMs === undefined ? {} : { heldMs }),
})

test('the same tag held twice is one warning with both ages; other tags and processes apart', () => {
  const warnings = heldWakeLockWarnings('com.example.trails', '4242', [
    lock('trails:export', 4242, 4900),
    lock('trails:export', 4242, 3200),
    lock('trails:sync', 4242),
    lock('trails:export', 777, 1000),
  ])
  expect(warnings.map((w) => w.message)).toEqual([
    "com.example.trails still holds 2 × PARTIAL_WAKE_LOCK 'trails:export' (acquired 4.9 s, 3.2 s ago): the CPU cannot suspend until it is released",
    "com.example.trails still holds PARTIAL_WAKE_LOCK 'trails:sync': the CPU cannot suspend until it is released",
  ])
  expect(warnings.every((w) => w.code === 'W_WAKELOCK_HELD')).toBe(true)
  expect(heldWakeLockWarnings('com.example.trails', '1', [lock('x', 2)])).toEqual([])
})
