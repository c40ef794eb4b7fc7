import { describe, expect, test } from 'vitest'
import { parseDumpsysPowerWakeLocks } from '../../../src/formats/dumpsys/index.js'
import { EnergyError } from '../../../src/model/errors.js'
import { expectLinear } from '../_linear.js'

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

describe('dumpsys power: durations and time (issue 16)', () => {
  const lock = (rest: string): string =>
    `Wake Locks: size=1\n  PARTIAL_WAKE_LOCK              'x' ${rest} (uid=1 pid=2)\n`
  const held = (rest: string): number | undefined =>
    parseDumpsysPowerWakeLocks(lock(rest))[0]?.heldMs
  test('TimeUtils.formatDuration forms', () => {
    expect(held('ACQ=-1d02h03m04s005ms')).toBe(93_784_005)
    expect(held('ACQ=-5m')).toBe(300_000)
    expect(held('ACQ=-5ms')).toBe(5)
    expect(held('ACQ=0')).toBe(0)
    expect(held('ACQ=-123')).toBeUndefined()
    expect(held('')).toBeUndefined()
  })
  test('a tag with quotes and a line separator in it', () => {
    expect(parseDumpsysPowerWakeLocks(lock("'a'b\u2028c' ACQ=-1s"))[0]?.tag).toBe("x' 'a'b\u2028c")
  })
  test('time is linear in the input: ACQ= and a long digit run without a unit', () => {
    expectLinear((n) => lock(`ACQ=-${'1'.repeat(n)}`), parseDumpsysPowerWakeLocks, 4000)
  })
  test('time is linear in the input: quotes and a late line separator', () => {
    expectLinear((n) => lock(`${"'".repeat(n)}\u2028x`), parseDumpsysPowerWakeLocks, 4000)
  })
})
