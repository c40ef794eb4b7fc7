/** Pure parts of the device layer: quoting, discovery rows, clock estimates, probe parsers. */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { mapAdbError } from '../../src/device/client.js'
import {
  estimateOffset,
  mappingAgeNs,
  parseEpochDate,
  parseProcUptime,
  parseTimerListNow,
  type ClockReading,
} from '../../src/device/clock.js'
import { parseDeviceRow } from '../../src/device/discovery.js'
import {
  assertProfileable,
  currentSignOf,
  currentUnitOf,
  parseDumpsysPackage,
  voltageUnitOf,
} from '../../src/device/probe.js'
import { buildCommandLine, quoteShellArg } from '../../src/device/shell.js'
import { isEnergyError } from '../../src/model/index.js'

const FIXTURES = join(import.meta.dirname, '..', 'fixtures', 'device')
const fixture = (name: string): string => readFileSync(join(FIXTURES, name), 'utf8')

function errorOf(fn: () => unknown): { code: string; message: string; hint: string } {
  try {
    fn()
  } catch (error) {
    if (isEnergyError(error)) return error
    throw error
  }
  throw new Error('expected an EnergyError')
}

describe('quoteShellArg', () => {
  test.each([
    ['plain', 'com.example.trails', 'com.example.trails'],
    ['space', 'a b', `'a b'`],
    ['single quote', `it's`, `'it'\\''s'`],
    ['dollar and backtick', '$HOME `id`', `'$HOME \`id\`'`],
    ['empty', '', `''`],
    ['newline', 'a\nb', `'a\nb'`],
  ])('%s', (_label, input, expected) => {
    expect(quoteShellArg(input)).toBe(expected)
  })

  test('a NUL byte cannot be passed and says so', () => {
    const error = errorOf(() => quoteShellArg('a\0b'))
    expect(error.code).toBe('E_SHELL_ARGUMENT')
    expect(error.hint).toMatch(/NUL/)
  })

  test('an empty argv is rejected', () => {
    expect(errorOf(() => buildCommandLine([])).code).toBe('E_INVALID_OPTION')
  })

  // Cross-check against a real POSIX shell (dash/bash as /bin/sh): the quoted word must come back
  // byte for byte. mksh (Android's sh) has the same single-quote rules.
  test('arbitrary strings survive a real /bin/sh byte for byte (property)', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.fullUnicodeString({ maxLength: 24 }).filter((s) => !s.includes('\0')),
          {
            minLength: 1,
            maxLength: 4,
          },
        ),
        (args) => {
          const line = `printf '%s\\0' ${args.map(quoteShellArg).join(' ')}`
          const out = execFileSync('/bin/sh', ['-c', line])
          expect(out.toString('utf8').split('\0').slice(0, -1)).toEqual(args)
        },
      ),
      { numRuns: 150 },
    )
  })
})

describe('parseDeviceRow (host:devices-l as adbkit splits it)', () => {
  test('a USB phone', () => {
    // `R5CT1234567 device usb:336592896X product:oriole model:Pixel_6 device:oriole transport_id:9`
    expect(
      parseDeviceRow({
        id: 'R5CT1234567',
        type: 'device',
        path: 'usb:336592896X',
        product: 'product:oriole',
        model: 'model:Pixel_6',
        device: 'device:oriole',
        transportId: 'transport_id:9',
      }),
    ).toEqual({
      serial: 'R5CT1234567',
      state: 'device',
      usb: '336592896X',
      product: 'oriole',
      model: 'Pixel 6',
      device: 'oriole',
      transportId: '9',
    })
  })

  test('an emulator has no usb path, so adbkit shifts every column', () => {
    // `emulator-5554 device product:sdk_gphone_x86 model:Android_SDK_built_for_x86 device:generic_x86 transport_id:1`
    const info = parseDeviceRow({
      id: 'emulator-5554',
      type: 'device',
      path: 'product:sdk_gphone_x86',
      product: 'model:Android_SDK_built_for_x86',
      model: 'device:generic_x86',
      device: 'transport_id:1',
    })
    expect(info.model).toBe('Android SDK built for x86')
    expect(info.transportId).toBe('1')
    expect(info.usb).toBeUndefined()
  })

  test("the virtual phone's model, which adb folds to underscores, reads without doubled spaces", () => {
    // `vdev-0001 device product:oriole model:Pixel_6__virtual_ device:oriole transport_id:1`
    const info = parseDeviceRow({
      id: 'vdev-0001',
      type: 'device',
      path: 'product:oriole',
      product: 'model:Pixel_6__virtual_',
      model: 'device:oriole',
      device: 'transport_id:1',
    })
    expect(info.model).toBe('Pixel 6 virtual')
  })

  test('unauthorized rows have no model; "no permissions" is split by adbkit', () => {
    expect(
      parseDeviceRow({ id: 'X', type: 'unauthorized', path: 'usb:1-1', product: 'transport_id:3' }),
    ).toEqual({ serial: 'X', state: 'unauthorized', usb: '1-1', transportId: '3' })
    expect(parseDeviceRow({ id: 'Y', type: 'no', path: 'permissions' }).state).toBe(
      'no-permissions',
    )
  })
})

describe('mapAdbError', () => {
  const ctx = { host: '127.0.0.1', port: 5037, serial: 'S1' }
  test.each([
    [
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      'E_ADB_UNREACHABLE',
    ],
    [
      new Error("Failure: 'device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set'"),
      'E_DEVICE_UNAUTHORIZED',
    ],
    [new Error("Failure: 'device offline'"), 'E_DEVICE_OFFLINE'],
    [new Error("Failure: 'device 'S1' not found'"), 'E_NO_DEVICE'],
    [
      Object.assign(new Error('Premature end of stream'), { name: 'PrematureEOFError' }),
      'E_DEVICE_DISCONNECTED',
    ],
    [new Error('something else'), 'E_ADB_PROTOCOL'],
  ])('%s → %s', (error, code) => {
    const mapped = mapAdbError(error, ctx)
    expect(mapped.code).toBe(code)
    expect(mapped.hint.length).toBeGreaterThan(10)
  })
})

describe('clock readings', () => {
  test('/proc/uptime is boottime in 10 ms steps', () => {
    expect(parseProcUptime('350735.47 234388.90\n')).toEqual({
      deviceNs: 350_735_470_000_000,
      resolutionNs: 10_000_000,
    })
    expect(parseProcUptime('garbage')).toBeUndefined()
  })

  test('date +%s%N and its seconds-only fallback', () => {
    // 1.8e18 ns is past 2^53: the parsed interval [deviceNs, deviceNs + resolution) must contain
    // the exact value, with the double's 256 ns rounding counted as resolution.
    const parsed = parseEpochDate('1795310400123456789\n')!
    const exact = 1795310400123456789n
    expect(parsed.resolutionNs).toBe(512)
    expect(BigInt(parsed.deviceNs) <= exact).toBe(true)
    expect(BigInt(parsed.deviceNs + parsed.resolutionNs) > exact).toBe(true)
    expect(parseEpochDate('1700000000000000\n')).toEqual({
      deviceNs: 1700000000000000,
      resolutionNs: 1,
    })
    expect(parseEpochDate('1795310400\n')).toEqual({ deviceNs: 1795310400e9, resolutionNs: 1e9 })
    expect(parseEpochDate('1795310400N\n')).toBeUndefined()
  })

  test('/proc/timer_list "now at" line', () => {
    const text =
      'Timer List Version: v0.8\nHRTIMER_MAX_CLOCK_BASES: 8\nnow at 350735471234567 nsecs\n'
    expect(parseTimerListNow(text)).toEqual({ deviceNs: 350735471234567, resolutionNs: 1 })
    expect(parseTimerListNow('/proc/timer_list: Permission denied')).toBeUndefined()
  })

  test('best of N: the narrowest reading wins, bounds are rigorous', () => {
    const readings: ClockReading[] = [
      { hostBeforeNs: 1000, deviceNs: 50_000, hostAfterNs: 9000, resolutionNs: 1 },
      { hostBeforeNs: 20_000, deviceNs: 70_100, hostAfterNs: 20_200, resolutionNs: 1 },
    ]
    const mapping = estimateOffset(readings, 'realtime')
    // Their bounds [41000, 49001] and [49900, 50101] are disjoint: only the narrowest is used.
    expect(mapping.method).toBe('best-reading')
    expect(mapping.roundTripNs).toBe(200)
    // offset ∈ [70100 − 20200, 70101 − 20000] = [49900, 50101]
    expect(mapping.offsetNs).toBe(50_000.5)
    expect(mapping.uncertaintyNs).toBe(100.5)
  })

  test('readings at different phases of a 10 ms tick narrow the bound below the tick', () => {
    const res = 10_000_000
    const trueOffset = 1_000_000_000_003_000 // device = host + this
    // Two 1 ms round trips, read 4 ms apart: the tick edge falls between them.
    const read = (before: number, at: number) => ({
      hostBeforeNs: before,
      hostAfterNs: before + 1_000_000,
      deviceNs: Math.floor((at + trueOffset) / res) * res,
      resolutionNs: res,
    })
    const m = estimateOffset([read(5_000_000, 5_500_000), read(9_000_000, 9_500_000)], 'boottime')
    expect(m.method).toBe('intersection')
    expect(m.uncertaintyNs).toBeLessThan(res / 2)
    expect(Math.abs(m.offsetNs - trueOffset)).toBeLessThanOrEqual(m.uncertaintyNs)
  })

  test('the true offset always lies within ± uncertainty (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: -1e12, max: 1e12 }),
        fc.array(
          fc.record({
            before: fc.integer({ min: 0, max: 1e9 }),
            delay: fc.integer({ min: 0, max: 1e7 }),
            at: fc.double({ min: 0, max: 1, noNaN: true }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        fc.constantFrom(1, 10_000_000),
        (trueOffset, samples, resolutionNs) => {
          const readings = samples.map(({ before, delay, at }) => {
            const readAt = before + Math.round(delay * at)
            const exact = readAt + trueOffset
            return {
              hostBeforeNs: before,
              hostAfterNs: before + delay,
              deviceNs: Math.floor(exact / resolutionNs) * resolutionNs,
              resolutionNs,
            }
          })
          const m = estimateOffset(readings, 'boottime')
          // Truncating readings of one constant offset always agree.
          expect(m.method).toBe('intersection')
          expect(Math.abs(m.offsetNs - trueOffset)).toBeLessThanOrEqual(m.uncertaintyNs + 1e-6)
          const narrowest = Math.min(
            ...readings.map((r) => (r.hostAfterNs - r.hostBeforeNs + r.resolutionNs) / 2),
          )
          expect(m.uncertaintyNs).toBeLessThanOrEqual(narrowest + 1e-6)
        },
      ),
    )
  })

  test('no usable reading is an error', () => {
    expect(errorOf(() => estimateOffset([], 'boottime')).code).toBe('E_CLOCK_UNREADABLE')
  })

  test("a mapping's age counts from its last reading; one without readings is new", () => {
    const read = (before: number, after: number): ClockReading => ({
      hostBeforeNs: before,
      hostAfterNs: after,
      deviceNs: before + 1e9,
      resolutionNs: 1e7,
    })
    const readings = [read(10, 20), read(30, 45), read(25, 28)]
    const m = { ...estimateOffset(readings, 'boottime'), command: 'cat /proc/uptime', readings }
    expect(mappingAgeNs(m, 100)).toBe(55)
    expect(mappingAgeNs(m, 40), 'never negative').toBe(0)
    expect(mappingAgeNs({ ...m, readings: [] }, 100)).toBe(0)
  })
})

describe('probe parsers', () => {
  test('dumpsys package: debuggable build', () => {
    const app = parseDumpsysPackage(
      fixture('dumpsys-package-debuggable.txt'),
      'com.example.trails',
      34,
    )
    expect(app).toMatchObject({
      installed: true,
      debuggable: true,
      profileable: 'yes',
      versionName: '1.4.2-debug',
    })
    expect(app.lines).toContain('flags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA ALLOW_BACKUP ]')
  })

  test('dumpsys package: release build is "unknown" on API 29+, "no" before', () => {
    const text = fixture('dumpsys-package-release.txt')
    expect(parseDumpsysPackage(text, 'com.example.trails', 34)).toMatchObject({
      debuggable: false,
      profileable: 'unknown',
    })
    const old = parseDumpsysPackage(text, 'com.example.trails', 28)
    expect(old.profileable).toBe('no')
    const error = errorOf(() => assertProfileable({ ...old, evidence: [] }, 'S1'))
    expect(error.code).toBe('E_NOT_PROFILEABLE')
    expect(error.hint).toContain('<profileable android:shell="true"/>')
  })

  test('dumpsys package: a PROFILEABLE token anywhere in the flags counts', () => {
    const text = fixture('dumpsys-package-release.txt').replace(
      'privateFlags=[ ',
      'privateFlags=[ PROFILEABLE_BY_SHELL ',
    )
    expect(parseDumpsysPackage(text, 'com.example.trails', 34).profileable).toBe('yes')
  })

  test('dumpsys package: not installed, and a prefix of another package is not a match', () => {
    const missing = parseDumpsysPackage(
      fixture('dumpsys-package-missing.txt'),
      'com.example.trails',
      34,
    )
    expect(missing.installed).toBe(false)
    const error = errorOf(() => assertProfileable({ ...missing, evidence: [] }, 'S1'))
    expect(error.code).toBe('E_APP_NOT_INSTALLED')
    expect(
      parseDumpsysPackage(fixture('dumpsys-package-debuggable.txt'), 'com.example.trail', 34)
        .installed,
    ).toBe(false)
  })

  test('current_now unit and sign heuristics', () => {
    expect(currentUnitOf(-412_000)).toBe('uA')
    expect(currentUnitOf(385)).toBe('mA')
    expect(currentUnitOf(0)).toBe('unknown')
    expect(currentSignOf(-412_000, true)).toBe('negative-discharge')
    expect(currentSignOf(412_000, true)).toBe('positive-discharge')
    expect(currentSignOf(412_000, false)).toBe('unknown')
    expect(voltageUnitOf(4_123_000)).toBe('uV')
    expect(voltageUnitOf(4123)).toBe('mV')
    expect(voltageUnitOf(12)).toBe('unknown')
  })
})
