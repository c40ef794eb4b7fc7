/**
 * Validation of the plugin's options (src/session/options.ts): every invalid option in one
 * E_INVALID_OPTION error, values shown as they were written, names that are not options rejected at
 * every level with the closest known name. Power-source options: test/collectors/options.test.ts.
 */
import { describe, expect, test, vi } from 'vitest'
import { isEnergyError, type EnergyError } from '../../src/model/index.js'
import { resolveOptions, type ResolvedEnergyOptions } from '../../src/session/options.js'

const app = 'com.example.trails'

function rejection(input: unknown): EnergyError {
  try {
    resolveOptions(input)
  } catch (error) {
    if (isEnergyError(error) && error.code === 'E_INVALID_OPTION') return error
    throw error
  }
  throw new Error('expected E_INVALID_OPTION')
}

/** The message's lines between the first and the hint: one per invalid option. */
function problemLines(error: EnergyError): string[] {
  return error.message
    .split('\n')
    .slice(1)
    .filter((l) => l.startsWith('  - '))
    .map((l) => l.slice(4))
}

const DEFAULTS: ResolvedEnergyOptions = {
  app,
  device: 'auto',
  adb: [{ host: '127.0.0.1', port: 5037 }],
  leases: { store: 'files', dir: null },
  power: 'auto',
  powerProfile: null,
  externalMeter: null,
  execution: 'simpleperf',
  samplingHz: 1000,
  repeats: 1,
  baseline: 'measure',
  baselineMs: null, // chosen by the power source: 1000 ms on ODPM rails, 3000 ms otherwise
  autoWindow: true,
  endReading: 'wait',
  windowEnd: 'background',
  calibration: 'run',
  batteryCapacityMah: null,
  inconclusive: 'fail',
  appium: { automationName: null, appActivity: null, capabilities: {} },
  budgets: 'energy-budgets.json',
  checkBudgets: false,
  budgetHeadroomPct: 10,
  classify: false,
  artifacts: 'on-failure',
  artifactsDir: '.vitest-energy/artifacts',
  html: { outputFile: null },
  virtualDevice: { appModel: null, devices: 1, seed: 1, rails: true },
}

describe('html: the HTML report off, or elsewhere', () => {
  test('false, true, { outputFile }', () => {
    expect(resolveOptions({ app, html: false }).html).toBe(false)
    expect(resolveOptions({ app, html: true }).html).toEqual({ outputFile: null })
    expect(resolveOptions({ app, html: { outputFile: 'out/energy.html' } }).html).toEqual({
      outputFile: 'out/energy.html',
    })
  })

  test('anything else is an E_INVALID_OPTION naming the field', () => {
    expect(() => resolveOptions({ app, html: { file: 'x.html' } })).toThrow(/html\.file/)
    expect(() => resolveOptions({ app, html: 'x.html' })).toThrow(/`html`/)
  })
})

describe('valid options resolve as before', () => {
  test('only `app`: every default', () => {
    expect(resolveOptions({ app })).toEqual(DEFAULTS)
  })

  test('every option set: each value is taken as given', () => {
    const every = {
      device: 'emulator-5554',
      adb: [
        { host: '10.0.0.2', port: 5038 },
        { host: 'lab-2', port: 5037 },
      ],
      leases: 'redis://lab-redis:6379',
      power: 'odpm',
      execution: 'art-sampling',
      samplingHz: 4000,
      repeats: 5,
      baseline: 0.25,
      baselineMs: 1000,
      autoWindow: false,
      endReading: 'extrapolate',
      windowEnd: 'test',
      calibration: 'keep',
      batteryCapacityMah: 4500,
      inconclusive: 'warn',
      budgets: 'b.json',
      checkBudgets: true,
      budgetHeadroomPct: 0,
      classify: { preset: 'couto2014' },
      artifacts: 'never',
      artifactsDir: 'raw',
      html: { outputFile: 'energy.html' },
      appium: {
        automationName: 'UiAutomator2',
        appActivity: '.Main',
        capabilities: { 'appium:newCommandTimeout': 120, 'appium:noReset': true },
      },
      virtualDevice: { appModel: 'm.json', devices: 3, seed: 0, rails: false },
    } as const
    expect(Object.keys(every).length + 3, 'all but app, powerProfile, externalMeter').toBe(
      Object.keys(DEFAULTS).length,
    )
    expect(resolveOptions({ app, ...every })).toEqual({
      ...DEFAULTS,
      ...every,
      leases: { store: 'redis', url: 'redis://lab-redis:6379', ttlMs: 15_000 },
    })
  })

  test('one adb server is a list of one; leases in files, or a Redis URL with its time-to-live', () => {
    expect(resolveOptions({ app, adb: { host: '10.0.0.2' } }).adb).toEqual([
      { host: '10.0.0.2', port: 5037 },
    ])
    expect(resolveOptions({ app, leases: 'files' }).leases).toEqual({ store: 'files', dir: null })
    expect(
      resolveOptions({ app, leases: { store: 'rediss://u:p@lab:6380/2', ttlMs: 30_000 } }).leases,
    ).toEqual({ store: 'redis', url: 'rediss://u:p@lab:6380/2', ttlMs: 30_000 })
  })

  test('VITEST_ENERGY_LEASES names the store when the option is absent (the option wins)', () => {
    vi.stubEnv('VITEST_ENERGY_LEASES', 'redis://ci-redis:6379')
    try {
      expect(resolveOptions({ app }).leases).toEqual({
        store: 'redis',
        url: 'redis://ci-redis:6379',
        ttlMs: 15_000,
      })
      expect(resolveOptions({ app, leases: 'files' }).leases.store).toBe('files')
    } finally {
      vi.unstubAllEnvs()
    }
  })

  test('empty nested objects, explicit undefined, `false` and `true` forms', () => {
    expect(
      resolveOptions({
        app,
        classify: {},
        adb: {},
        virtualDevice: {},
        appium: {},
        baseline: 0,
        repeats: undefined,
      }),
    ).toEqual({ ...DEFAULTS, classify: {}, baseline: 0 })
    expect(
      resolveOptions({
        app,
        power: 'external-meter',
        externalMeter: { command: ['meter'], nominalVoltageV: 3.8 },
        baseline: 'none',
        classify: true,
        appium: false,
      }),
    ).toEqual({
      ...DEFAULTS,
      power: 'external-meter',
      externalMeter: { file: null, command: ['meter'], nominalVoltageV: 3.8 },
      baseline: 'none',
      classify: true,
      appium: false,
    })
  })
})

test("a value a typo away from one of an option's values says which", () => {
  expect(
    problemLines(
      rejection({ app: 'com.example.trails', power: 'fuelgauge', execution: 'simpelperf' }),
    ),
  ).toEqual([
    "`power`: got 'fuelgauge'; expected one of 'auto', 'odpm', 'fuel-gauge', 'batterystats', 'external-meter' — did you mean 'fuel-gauge'?",
    "`execution`: got 'simpelperf'; expected one of 'simpleperf', 'art-sampling', 'art-instrumentation', 'none' — did you mean 'simpleperf'?",
  ])
})

describe('every invalid option at once', () => {
  test('one error lists each field with what was given and what is expected, in the order written', () => {
    const error = rejection({
      app: 'trails',
      repeats: 0,
      power: 'monsoon',
      baselineMs: 50,
      autoWindow: 'yes',
      virtualDevice: { devices: 17 },
    })
    expect(error.message.split('\n')[0]).toBe(
      '[E_INVALID_OPTION] 6 vitest-energy options are invalid:',
    )
    expect(problemLines(error)).toEqual([
      "`app`: got 'trails'; expected an Android package name like 'com.example.trails'",
      '`repeats`: got 0; expected an integer from 1 to 10000',
      "`power`: got 'monsoon'; expected one of 'auto', 'odpm', 'fuel-gauge', 'batterystats', 'external-meter'",
      '`baselineMs`: got 50; expected an integer from 100 to 600000',
      "`autoWindow`: got 'yes'; expected true or false",
      '`virtualDevice.devices`: got 17; expected an integer from 1 to 16',
    ])
    expect(error.details).toEqual({
      field: 'app',
      fields: 'app, repeats, power, baselineMs, autoWindow, virtualDevice.devices',
      count: 6,
    })
    expect(error.hint).toBe(
      'In the Vitest config, fix the 6 options above in energy({...}). Every option and its values: docs/configuration.md.',
    )
  })

  test('a single problem is one line, and the hint names the field', () => {
    const error = rejection({ app, repeats: 2.5 })
    expect(error.message).toBe(
      '[E_INVALID_OPTION] vitest-energy option `repeats`: got 2.5; expected an integer from 1 to 10000\n' +
        '  → In the Vitest config, fix `repeats` in energy({...}). Every option and its values: docs/configuration.md.',
    )
    expect(error.details).toEqual({ field: 'repeats', fields: 'repeats', count: 1 })
  })

  test("simpleperf's `samplingHz` is an integer from 1 to 100 000 (`simpleperf record -f`)", () => {
    for (const samplingHz of [0, 2500.5, 200_000, '4000'])
      expect(rejection({ app, samplingHz }).message).toContain(
        `option \`samplingHz\`: got ${typeof samplingHz === 'string' ? `'${samplingHz}'` : samplingHz}; expected an integer from 1 to 100000`,
      )
  })

  test('adb lists and lease stores: each problem names its field', () => {
    expect(rejection({ app, adb: [] }).message).toContain(
      "vitest-energy option `adb`: got []; expected an object like { host: '127.0.0.1', port: 5037 }, or a non-empty list of them",
    )
    expect(
      problemLines(
        rejection({
          app,
          adb: [{ host: 'a' }, 'b:5037', { host: 'a', port: 5037 }, { hots: 'c' }],
        }),
      ),
    ).toEqual([
      "`adb[1]`: got 'b:5037'; expected an object like { host: '127.0.0.1', port: 5037 }, or a non-empty list of them",
      '`adb[3].hots`: not an option; did you mean `adb[3].host`?',
      "`adb[2]`: got { host: 'a', port: 5037 }; expected a server not listed before (a:5037 is)",
    ])
    const expected =
      "expected 'files', a Redis URL like 'redis://lab-redis:6379', or { store: 'redis://…', ttlMs: 15000 }"
    expect(rejection({ app, leases: 'redis:lab' }).message).toContain(
      `vitest-energy option \`leases\`: got 'redis:lab'; ${expected}`,
    )
    expect(problemLines(rejection({ app, leases: { store: 'etcd://x', ttlMs: 10 } }))).toEqual([
      '`leases.ttlMs`: got 10; expected an integer from 1000 to 3600000',
      `\`leases.store\`: got 'etcd://x'; ${expected}`,
    ])
  })

  test('a missing `app` is reported with the other problems', () => {
    const error = rejection({ repeats: 0, externalMeter: { file: 'm.csv', command: ['meter'] } })
    expect(problemLines(error)).toEqual([
      "`app`: missing; expected an Android package name like 'com.example.trails'",
      '`repeats`: got 0; expected an integer from 1 to 10000',
      "`externalMeter`: got { file: 'm.csv', command: [ 'meter' ] }; expected exactly one of `file` and `command`",
    ])
    expect(error.hint).toContain('fix `app`, `repeats` and `externalMeter` in energy({...})')
  })

  test('options that are not an object', () => {
    for (const input of [undefined, null, 'com.example.trails', [app]]) {
      const error = rejection(input)
      expect(error.details['field']).toBe('options')
      expect(error.message).toContain("expected an object like { app: 'com.example.app' }")
    }
  })
})

describe('values are shown as written', () => {
  test.each([
    [{ repeats: Number.NaN }, '`repeats`: got NaN;'],
    [{ baselineMs: Number.POSITIVE_INFINITY }, '`baselineMs`: got Infinity;'],
    [{ baseline: Number.NEGATIVE_INFINITY }, '`baseline`: got -Infinity;'],
    [{ batteryCapacityMah: Number.NaN }, '`batteryCapacityMah`: got NaN;'],
    [{ budgetHeadroomPct: Number.NaN }, '`budgetHeadroomPct`: got NaN;'],
    [{ externalMeter: { file: 'm.csv', nominalVoltageV: Number.NaN } }, 'got NaN;'],
    [{ externalMeter: { file: 'm.csv', nominalVoltageV: Infinity } }, 'got Infinity;'],
    [{ adb: { port: Number.NaN } }, '`adb.port`: got NaN;'],
    [{ device: function pickDevice() {} }, '`device`: got [Function: pickDevice];'],
    [{ appium: { capabilities: { 'appium:x': () => 1 } } }, 'got [Function: appium:x];'],
    [
      { appium: { capabilities: { 'appium:y': undefined } } },
      '`appium.capabilities.appium:y`: got undefined;',
    ],
    [{ classify: { preset: null } }, '`classify.preset`: got null;'],
    [{ power: 10n }, '`power`: got 10n;'],
    [{ repeats: '3' }, "`repeats`: got '3';"],
  ])('%o', (input, expected) => {
    const error = rejection({ app, ...input })
    expect(error.message).toContain(expected)
  })

  test('NaN is never shown as null', () => {
    const error = rejection({
      app,
      repeats: Number.NaN,
      baseline: Number.NaN,
      virtualDevice: { seed: Number.NaN },
    })
    expect(error.message).not.toContain('null')
    expect(error.message.match(/got NaN/g)).toHaveLength(3)
  })

  test('long strings and deep objects are shortened', () => {
    const error = rejection({ app, device: '', budgets: { a: { b: { c: { d: 1 } } } } })
    expect(problemLines(error)).toEqual([
      "`device`: got ''; expected a non-empty string",
      '`budgets`: got { a: { b: [Object] } }; expected a non-empty string',
    ])
    expect(rejection({ app, power: 'x'.repeat(200) }).message).toContain('... 140 more characters')
  })
})

describe('names that are not options', () => {
  test('at the top level: the closest name, else the list of options', () => {
    expect(
      problemLines(rejection({ app, baslineMs: 1, repaets: 2, BUDGETS: 'b', wat: 1 })),
    ).toEqual([
      '`baslineMs`: not an option; did you mean `baselineMs`?',
      '`repaets`: not an option; did you mean `repeats`?',
      '`BUDGETS`: not an option; did you mean `budgets`?',
      '`wat`: not an option; the options are app, device, adb, leases, power, powerProfile, externalMeter, execution, samplingHz, repeats, baseline, baselineMs, autoWindow, endReading, windowEnd, calibration, batteryCapacityMah, inconclusive, budgets, checkBudgets, budgetHeadroomPct, classify, artifacts, artifactsDir, html, appium, virtualDevice',
    ])
  })

  test.each([
    [
      { virtualDevice: { bogus: 1 } },
      '`virtualDevice.bogus`: not an option; `virtualDevice` takes appModel, devices, seed, rails',
    ],
    [
      { virtualDevice: { device: 2 } },
      '`virtualDevice.device`: not an option; did you mean `virtualDevice.devices`?',
    ],
    [{ adb: { bogus: 1 } }, '`adb.bogus`: not an option; `adb` takes host, port'],
    [{ adb: { hots: 'h' } }, '`adb.hots`: not an option; did you mean `adb.host`?'],
    [{ adb: { hostname: 'h' } }, '`adb.hostname`: not an option; did you mean `adb.host`?'],
    [
      { appium: { bogus: 1 } },
      '`appium.bogus`: not an option; `appium` takes automationName, appActivity, capabilities',
    ],
    [
      { appium: { automation: 'x' } },
      '`appium.automation`: not an option; did you mean `appium.automationName`?',
    ],
    [
      { externalMeter: { file: 'm.csv', bogus: 1 } },
      '`externalMeter.bogus`: not an option; `externalMeter` takes file, command, nominalVoltageV',
    ],
    [
      { externalMeter: { file: 'm.csv', nominalVoltage: 4 } },
      '`externalMeter.nominalVoltage`: not an option; did you mean `externalMeter.nominalVoltageV`?',
    ],
    [{ classify: { bogus: true } }, '`classify.bogus`: not an option; `classify` takes preset'],
    [
      { classify: { presets: 'couto2014' } },
      '`classify.presets`: not an option; did you mean `classify.preset`?',
    ],
  ])('nested: %o', (input, line) => {
    const error = rejection({ app, ...input })
    expect(error.message).toContain(line)
    expect(error.hint).toContain('rename or remove the names that are not options')
  })

  test('nested names are reported with everything else', () => {
    const error = rejection({
      app,
      adb: { hots: 'h', port: 0 },
      classify: { bogus: 1 },
      repeats: 0,
    })
    expect(problemLines(error)).toEqual([
      '`adb.hots`: not an option; did you mean `adb.host`?',
      '`adb.port`: got 0; expected an integer from 1 to 65535',
      '`classify.bogus`: not an option; `classify` takes preset',
      '`repeats`: got 0; expected an integer from 1 to 10000',
    ])
  })

  test('capability names are free: Appium defines them', () => {
    expect(
      resolveOptions({ app, appium: { capabilities: { 'vendor:anything': 1 } } }).appium,
    ).toEqual({
      automationName: null,
      appActivity: null,
      capabilities: { 'vendor:anything': 1 },
    })
  })
})

describe('device: a typo of auto or virtual is not a serial', () => {
  test("'virtaul', 'Virtual' and 'atuo' are refused with the word meant", () => {
    for (const [given, meant] of [
      ['virtaul', 'virtual'],
      ['Virtual', 'virtual'],
      ['atuo', 'auto'],
    ] as const) {
      const error = rejection({ app, device: given })
      expect(error.message).toContain(`\`device\`: got '${given}'`)
      expect(error.message).toContain(`did you mean '${meant}'?`)
    }
  })

  test('serials, even short words, and the two keywords pass as given', () => {
    for (const device of ['auto', 'virtual', 'emulator-5554', 'R58M123ABC', 'pixel', 'vdev-0001'])
      expect(resolveOptions({ app, device }).device).toBe(device)
  })
})
