import { describe, expect, test } from 'vitest'
import { parseDumpsysPowerWakeLocks } from '../../../src/formats/dumpsys/index.js'
import { EnergyError } from '../../../src/model/errors.js'

// Layout of AOSP PowerManagerService.WakeLock.toString (level padded to 30 characters).
const dump = [
  'POWER MANAGER (dumpsys power)',
  '',
  'Power Manager State:',
  '  mWakefulness=Awake',
  '',
  'Wake Locks: size=2',
  "  PARTIAL_WAKE_LOCK              'trails:export' ACQ=-12s345ms (uid=10187 pid=4321)",
  "  SCREEN_BRIGHT_WAKE_LOCK        'WindowManager' ON_AFTER_RELEASE ACQ=-1h02m03s004ms LONG (uid=1000 pid=1021)",
  '',
  'Suspend Blockers: size=4',
].join('\n')

describe('dumpsys power wake locks', () => {
  test('reads level, tag, uid, pid, time held and LONG', () => {
    expect(parseDumpsysPowerWakeLocks(dump)).toEqual([
      {
        level: 'PARTIAL_WAKE_LOCK',
        tag: 'trails:export',
        uid: 10187,
        pid: 4321,
        heldMs: 12_345,
        long: false,
      },
      {
        level: 'SCREEN_BRIGHT_WAKE_LOCK',
        tag: 'WindowManager',
        uid: 1000,
        pid: 1021,
        heldMs: 3_723_004,
        long: true,
      },
    ])
  })

  test('an empty list', () => {
    expect(parseDumpsysPowerWakeLocks('Wake Locks: size=0\n\nSuspend Blockers: size=4\n')).toEqual(
      [],
    )
  })

  test('rejects a dump without the section, and a truncated list, with line numbers', () => {
    expect(() => parseDumpsysPowerWakeLocks('POWER MANAGER (dumpsys power)\n')).toThrowError(
      /no `Wake Locks: size=N` section/,
    )
    try {
      parseDumpsysPowerWakeLocks(
        "Wake Locks: size=2\n  PARTIAL_WAKE_LOCK 'a' ACQ=-1s (uid=1 pid=2)\n\n",
      )
      throw new Error('expected a failure')
    } catch (error) {
      expect(error).toBeInstanceOf(EnergyError)
      expect((error as EnergyError).code).toBe('E_DUMPSYS_POWER_BAD_WAKE_LOCK')
      expect((error as EnergyError).details.line).toBe(3)
    }
  })
})
