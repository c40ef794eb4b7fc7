import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'

import {
  formatPowerProfile,
  parsePowerProfile,
  PowerProfileErrors,
  powerProfileFromEntries,
  profileCurrentMa,
  type PowerProfile,
} from '../../../src/formats/power-profile/index.js'
import { EnergyError } from '../../../src/model/errors.js'
import { expectLinear } from '../_linear.js'
import { sharedCorpus } from '../_shared-corpus.js'

const corpus = join(import.meta.dirname, '../../fixtures/corpus/1_power_profile')
const readGolden = (name: string): unknown =>
  JSON.parse(readFileSync(join(import.meta.dirname, '../../fixtures/power-profile', name), 'utf8'))
const golden = readGolden('corpus-golden.json') as Record<
  string,
  {
    items: number
    arrays: number
    cores: number[]
    freqCounts: number[]
    batteryCapacityMah: number | null
  }
>
const load = (name: string): PowerProfile =>
  parsePowerProfile(readFileSync(join(corpus, name), 'utf8'))

/** Schema per file, read off the key families by hand (PROVENANCE.md "Format notes"). */
const schemas: Record<string, PowerProfile['schema']> = {
  'aicp_oneplus8_instantnoodle_power_profile.xml': 'modern',
  'aosp_pixel4_flame_power_profile.xml': 'modern',
  'aosp_pixel4xl_coral_power_profile.xml': 'modern',
  'aosp_pixel6_oriole_power_profile.xml': 'modern',
  'aosp_pixel6pro_raven_power_profile.xml': 'modern',
  'aosp_pixel8pro_husky_power_profile.xml': 'modern',
  'aosp_pixel_sailfish_power_profile.xml': 'modern',
  'aosp_pixelxl_marlin_power_profile.xml': 'modern',
  'cm_nexus5_hammerhead_power_profile.xml': 'legacy',
  'emanafa_power_profile.xml': 'legacy',
  'emanafa_power_profile_frd-l09.xml': 'legacy',
  'emanafa_power_profile_m2010j19cg.xml': 'per-cluster-legacy',
  'emanafa_power_profile_mi9lite.xml': 'modern',
  'emanafa_power_profile_mia2lite.xml': 'mixed',
  'emanafa_power_profile_pixel3a.xml': 'modern',
  'emanafa_power_profile_pixel4a_5g.xml': 'modern',
  'emanafa_power_profile_redminote8t.xml': 'modern',
  'emanafa_power_profile_redminote9s.xml': 'modern',
  'emanafa_power_profile_sdk_gphone_x86_arm.xml': 'per-cluster-legacy',
  'emanafa_power_profile_sm-t810.xml': 'per-cluster-legacy',
  'lineage_oneplusone_bacon_power_profile.xml': 'legacy',
  'petra_power_profile_example.xml': 'legacy',
  'petra_power_profile_w_clusters.xml': 'per-cluster-legacy',
  'teracube2e_mt6765_power_profile.xml': 'per-cluster-legacy',
}

function expectError(fn: () => unknown, code: string): EnergyError {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(EnergyError)
    const e = error as EnergyError
    expect(e.code).toBe(code)
    expect(e.hint.length).toBeGreaterThan(10)
    expect(e.details.format).toBe('power_profile.xml')
    return e
  }
  throw new Error(`expected ${code}, nothing was thrown`)
}

describe('power_profile.xml corpus', () => {
  const files = readdirSync(corpus).filter((f) => f.endsWith('.xml'))
  test('every corpus file has a golden entry and a schema', () => {
    expect(files.sort()).toEqual(Object.keys(golden).sort())
    expect(files.sort()).toEqual(Object.keys(schemas).sort())
  })
  test.each(files)('%s matches the golden summary and round-trips', (file) => {
    const p = load(file)
    const g = golden[file]
    expect(g).toBeDefined()
    if (g === undefined) return
    expect(p.schema, 'schema').toBe(schemas[file])
    expect(Object.keys(p.items).length, 'items').toBe(g.items)
    expect(Object.keys(p.arrays).length, 'arrays').toBe(g.arrays)
    expect(
      p.cpu.clusters.map((c) => c.cores),
      'cores',
    ).toEqual(g.cores)
    expect(
      p.cpu.clusters.map((c) => c.speedsKhz.length),
      'frequencies',
    ).toEqual(g.freqCounts)
    for (const c of p.cpu.clusters) expect(c.corePowerMa.length).toBe(c.speedsKhz.length)
    expect(p.batteryCapacityMah ?? null, 'capacity').toBe(g.batteryCapacityMah)
    expect(parsePowerProfile(formatPowerProfile(p))).toEqual(p)
  })
})

describe('power_profile.xml quirks', () => {
  test('Pixel 8 Pro has no battery.capacity', () => {
    const p = load('aosp_pixel8pro_husky_power_profile.xml')
    expect(p.batteryCapacityMah).toBeUndefined()
    expect('batteryCapacityMah' in p).toBe(false)
    expect(p.cpu).toMatchObject({ suspendMa: 10, idleMa: 28.6, activeMa: 12.37 })
    expect(p.cpu.clusters.map((c) => c.clusterPowerMa)).toEqual([0.24, 3.23, 5.94])
  })
  test('Mi A2 Lite mixes cpu.speeds with cpu.core_power.cluster0 (core_power wins over cpu.active)', () => {
    const p = load('emanafa_power_profile_mia2lite.xml')
    expect(p.schema).toBe('mixed')
    expect(p.cpu.clusters).toEqual([
      {
        cores: 1,
        speedsKhz: [200000, 499200, 533333, 800000, 998400, 1094400, 1209600],
        corePowerMa: [10, 15, 20, 30, 35, 45, 52],
        clusterPowerMa: 0,
      },
    ])
    expect(p.arrays['cpu.active']).toEqual([151, 169, 177, 195, 259, 307, 353])
    // legacy idle semantics: cpu.idle = suspended, cpu.awake = awake idle
    expect(p.cpu).toMatchObject({ suspendMa: 1.6, idleMa: 1.6, activeMa: 0 })
  })
  test("OnePlus 8 keeps the non-standard 'ambient on' key", () => {
    const p = load('aicp_oneplus8_instantnoodle_power_profile.xml')
    expect(p.items['ambient on']).toBe(35)
    expect(formatPowerProfile(p)).toContain('<item name="ambient on">35</item>')
  })
  test('Nexus 5 legacy profile maps cpu.speeds/cpu.active/cpu.awake to one cluster', () => {
    const p = load('cm_nexus5_hammerhead_power_profile.xml')
    expect(p.schema).toBe('legacy')
    const c = p.cpu.clusters[0]
    expect(c?.speedsKhz[0]).toBe(300000)
    expect(c?.corePowerMa.length).toBe(14)
    expect(p.cpu.suspendMa).toBe(p.items['cpu.idle'])
    expect(p.cpu.idleMa).toBe(p.items['cpu.awake'])
    expect(p.items['wifi.batchedscan']).toBeUndefined()
    expect(p.arrays['wifi.batchedscan']?.length).toBeGreaterThan(0)
  })
  test('profileCurrentMa reads items and the first value of arrays', () => {
    const p = load('petra_power_profile_example.xml')
    expect(profileCurrentMa(p, 'screen.on')).toBe(p.items['screen.on'])
    expect(profileCurrentMa(p, 'radio.on')).toBe(p.arrays['radio.on']?.[0])
    expect(profileCurrentMa(p, 'no.such.key')).toBeUndefined()
  })
  test('a hand-built profile (clusters only) is written in the modern schema', () => {
    const p = powerProfileFromEntries({ 'screen.on': 100 }, {})
    const built: PowerProfile = {
      ...p,
      batteryCapacityMah: 3000,
      cpu: {
        suspendMa: 5,
        idleMa: 10,
        activeMa: 20,
        clusters: [
          { cores: 4, speedsKhz: [300000, 1800000], corePowerMa: [10, 90], clusterPowerMa: 2 },
        ],
        scalingPolicies: [{ policy: 0, policyPowerMa: 2, stepPowerMa: [10, 90] }],
      },
    }
    const back = parsePowerProfile(formatPowerProfile(built))
    expect(back.schema).toBe('modern')
    expect(back.cpu).toEqual(built.cpu)
    expect(back.batteryCapacityMah).toBe(3000)
    expect(back.items['screen.on']).toBe(100)
  })
})

describe('power_profile.xml round trip (property)', () => {
  const key = fc.stringMatching(/^[a-z][a-z0-9 ._]{0,20}$/)
  const num = fc
    .double({ min: -1e6, max: 1e6, noNaN: true })
    .map((v) => Math.round(v * 1000) / 1000)
  test('parse(format(entries)) keeps every item and array', () => {
    fc.assert(
      fc.property(
        fc.dictionary(key, num),
        fc.dictionary(key, fc.array(num, { maxLength: 5 })),
        (items, arrays) => {
          // stay clear of the CPU keys, whose lengths are validated
          const safeArrays = Object.fromEntries(
            Object.entries(arrays).filter(([k]) => !k.startsWith('cpu')),
          )
          const safeItems = Object.fromEntries(
            Object.entries(items).filter(([k]) => !k.startsWith('cpu')),
          )
          // a <device> without entries is rejected on reading (not a profile)
          fc.pre(Object.keys(safeItems).length + Object.keys(safeArrays).length > 0)
          const p = powerProfileFromEntries(safeItems, safeArrays)
          const back = parsePowerProfile(formatPowerProfile(p))
          expect(back.items).toEqual(safeItems)
          expect(back.arrays).toEqual(safeArrays)
        },
      ),
    )
  })
})

describe('power_profile.xml negative', () => {
  test('not XML', () => {
    const e = expectError(() => parsePowerProfile('{"screen.on": 1}'), PowerProfileErrors.NOT_XML)
    expect(e.details.line).toBe(1)
  })
  test('truncated XML reports the problem', () => {
    const text = readFileSync(join(corpus, 'petra_power_profile_example.xml'), 'utf8')
    expectError(() => parsePowerProfile(text.slice(0, text.length / 2)), PowerProfileErrors.NOT_XML)
  })
  test('XML but not a power profile', () => {
    const e = expectError(
      () => parsePowerProfile('<?xml version="1.0"?><hierarchy rotation="0"><node/></hierarchy>'),
      PowerProfileErrors.NOT_POWER_PROFILE,
    )
    expect(e.message).toContain('<hierarchy>')
  })
  test('uiautomator dump from the corpus is rejected as not a profile', () => {
    const dump = readFileSync(join(corpus, '../6_dumpsys_uiautomator/nora_ui_dump.xml'), 'utf8')
    expectError(() => parsePowerProfile(dump), PowerProfileErrors.NOT_POWER_PROFILE)
  })
  test('non-numeric item value names the item', () => {
    const e = expectError(
      () => parsePowerProfile('<device name="Android"><item name="screen.on">lots</item></device>'),
      PowerProfileErrors.BAD_VALUE,
    )
    expect(e.message).toContain('screen.on')
    expect(e.message).toContain('"lots"')
    expect(e.details.key).toBe('screen.on')
  })
  test('non-numeric array value names the array and position', () => {
    const e = expectError(
      () =>
        parsePowerProfile(
          '<device><array name="radio.on"><value>1</value><value>0x10</value></array></device>',
        ),
      PowerProfileErrors.BAD_VALUE,
    )
    expect(e.message).toContain('radio.on')
    expect(e.message).toContain('#2')
    expect(e.details.line).toBe(1)
  })
  test('a corrupted value in a real profile names its line', () => {
    const text = readFileSync(join(corpus, 'cm_nexus5_hammerhead_power_profile.xml'), 'utf8')
    const bad = text.replace('<item name="screen.full">', '<item name="screen.full">x')
    const e = expectError(() => parsePowerProfile(bad), PowerProfileErrors.BAD_VALUE)
    const expected = text.slice(0, text.indexOf('name="screen.full"')).split('\n').length
    expect(e.details).toMatchObject({ key: 'screen.full', line: expected })
  })
  test('empty item is an error, not 0', () => {
    expectError(
      () => parsePowerProfile('<device><item name="gps.on"></item></device>'),
      PowerProfileErrors.BAD_VALUE,
    )
  })
  test('item without a name', () => {
    expectError(
      () => parsePowerProfile('<device><item>3</item></device>'),
      PowerProfileErrors.MISSING_NAME,
    )
  })
  test('speeds and powers of different lengths say which arrays', () => {
    const e = expectError(
      () =>
        parsePowerProfile(
          `<device>
            <array name="cpu.clusters.cores"><value>4</value></array>
            <array name="cpu.core_speeds.cluster0"><value>300000</value><value>600000</value></array>
            <array name="cpu.core_power.cluster0"><value>10</value></array>
          </device>`,
        ),
      PowerProfileErrors.LENGTH_MISMATCH,
    )
    expect(e.message).toContain('cpu.core_speeds.cluster0 has 2')
    expect(e.message).toContain('cpu.core_power.cluster0 has 1')
  })
  test('legacy cpu.speeds without cpu.active', () => {
    const e = expectError(
      () => parsePowerProfile('<device><array name="cpu.speeds"><value>1</value></array></device>'),
      PowerProfileErrors.LENGTH_MISMATCH,
    )
    expect(e.message).toContain('cpu.speeds has 1')
  })
  test('cluster keys beyond cpu.clusters.cores', () => {
    expectError(
      () =>
        parsePowerProfile(
          `<device><array name="cpu.clusters.cores"><value>4</value></array>
           <array name="cpu.core_speeds.cluster1"><value>1</value></array>
           <array name="cpu.core_power.cluster1"><value>1</value></array></device>`,
        ),
      PowerProfileErrors.LENGTH_MISMATCH,
    )
  })
  test('fractional core count', () => {
    expectError(
      () =>
        parsePowerProfile(
          '<device><array name="cpu.clusters.cores"><value>2.5</value></array></device>',
        ),
      PowerProfileErrors.BAD_VALUE,
    )
  })
})

describe('power_profile.xml robustness (fuzz)', () => {
  const seed = readFileSync(join(corpus, 'petra_power_profile_w_clusters.xml'), 'utf8')
  const onlyEnergyErrors = (input: string): void => {
    try {
      parsePowerProfile(input)
    } catch (e) {
      expect(e).toBeInstanceOf(EnergyError)
    }
  }
  test('arbitrary text either parses or throws EnergyError', () => {
    fc.assert(fc.property(fc.string({ maxLength: 300 }), onlyEnergyErrors))
  })
  test('truncations and single-character corruptions of a real profile', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: seed.length }),
        fc.integer({ min: 0, max: seed.length - 1 }),
        fc.constantFrom('<', '>', '"', 'x', '9', ' ', '/'),
        (cut, at, ch) => {
          onlyEnergyErrors(seed.slice(0, cut))
          onlyEnergyErrors(seed.slice(0, at) + ch + seed.slice(at + 1))
        },
      ),
      { numRuns: 300 },
    )
  })
  test('<device> without entries is not a profile', () => {
    expectError(
      () => parsePowerProfile('<device name="Android"></device>'),
      PowerProfileErrors.NOT_POWER_PROFILE,
    )
  })
})

describe('power_profile.xml key variants AOSP reads', () => {
  const device = (body: string): string => `<device name="Android">${body}</device>`
  const item = (name: string, value: number): string => `<item name="${name}">${value}</item>`
  const array = (name: string, values: readonly number[]): string =>
    `<array name="${name}">${values.map((v) => `<value>${v}</value>`).join('')}</array>`
  const cluster0 =
    array('cpu.clusters.cores', [4]) +
    array('cpu.core_speeds.cluster0', [300000, 1800000]) +
    array('cpu.core_power.cluster0', [10, 90])

  test('screen.on.display0 / screen.full.display0 (Fairphone 4 form) are the screen', () => {
    const p = parsePowerProfile(
      device(item('screen.on.display0', 108) + item('screen.full.display0', 430) + cluster0),
    )
    expect(p.displays).toEqual([{ screenOnMa: 108, screenFullMa: 430 }])
    expect(p.warnings).toEqual([])
    // the file's own keys are kept as written; nothing is invented
    expect(p.items['screen.on']).toBeUndefined()
  })
  test('several displays, ambient.on.displayN, arrays read by their first value', () => {
    const p = parsePowerProfile(
      device(
        item('screen.on.display0', 100) +
          array('screen.full.display0', [400, 1]) +
          item('ambient.on.display1', 20) +
          item('screen.on.display1', 60) +
          item('screen.on', 999) +
          cluster0,
      ),
    )
    expect(p.displays).toEqual([
      { screenOnMa: 100, screenFullMa: 400 },
      { screenOnMa: 60, ambientMa: 20 },
    ])
    expect(parsePowerProfile(formatPowerProfile(p))).toEqual(p)
  })
  test('a display after a gap is ignored, with a warning', () => {
    const p = parsePowerProfile(device(item('screen.on', 90) + item('screen.on.display2', 50)))
    expect(p.displays).toEqual([{ screenOnMa: 90 }])
    expect(p.warnings.join('\n')).toContain('screen.on.display2 ignored')
  })
  test('no screen keys: a warning, not silence', () => {
    const p = parsePowerProfile(device(item('wifi.on', 3) + cluster0))
    expect(p.displays).toEqual([])
    expect(p.warnings).toHaveLength(1)
    expect(p.warnings[0]).toMatch(/^no screen power/)
  })
  test('Android 14+ cpu.scaling_policy_power / cpu.scaling_step_power keys are the CPU model', () => {
    const p = parsePowerProfile(
      device(
        item('screen.on', 100) +
          item('cpu.scaling_policy_power.policy4', 2.22) +
          item('cpu.scaling_policy_power.policy0', 2.11) +
          array('cpu.scaling_step_power.policy0', [10, 20, 30]) +
          array('cpu.scaling_step_power.policy4', [25, 35, 50, 60]),
      ),
    )
    expect(p.schema).toBe('scaling-policy')
    expect(p.cpu.clusters).toEqual([])
    expect(p.cpu.scalingPolicies).toEqual([
      { policy: 0, policyPowerMa: 2.11, stepPowerMa: [10, 20, 30] },
      { policy: 4, policyPowerMa: 2.22, stepPowerMa: [25, 35, 50, 60] },
    ])
    expect(p.warnings).toEqual([])
    expect(parsePowerProfile(formatPowerProfile(p))).toEqual(p)
  })
  test('without policy keys the policies come from the clusters (first CPU, cluster power)', () => {
    const p = load('aosp_pixel6_oriole_power_profile.xml')
    expect(p.cpu.scalingPolicies.map((x) => [x.policy, x.policyPowerMa])).toEqual([
      [0, 0.24],
      [4, 3.23],
      [6, 5.94],
    ])
    expect(p.cpu.scalingPolicies[2]?.stepPowerMa).toBe(p.cpu.clusters[2]?.corePowerMa)
  })
  test('cpu.power_brackets.policyN: for every policy or none, one per step', () => {
    const policies =
      array('cpu.scaling_step_power.policy0', [10, 20]) +
      array('cpu.scaling_step_power.policy2', [30])
    const p = parsePowerProfile(
      device(
        policies +
          array('cpu.power_brackets.policy0', [0, 1]) +
          array('cpu.power_brackets.policy2', [1]),
      ),
    )
    expect(p.cpu.scalingPolicies.map((x) => x.powerBrackets)).toEqual([[0, 1], [1]])
    expectError(
      () => parsePowerProfile(device(policies + array('cpu.power_brackets.policy0', [0, 1]))),
      PowerProfileErrors.LENGTH_MISMATCH,
    )
    expectError(
      () =>
        parsePowerProfile(
          device(
            policies +
              array('cpu.power_brackets.policy0', [0]) +
              array('cpu.power_brackets.policy2', [1]),
          ),
        ),
      PowerProfileErrors.LENGTH_MISMATCH,
    )
  })
  test('no CPU keys at all: a warning', () => {
    const p = parsePowerProfile(device(item('screen.on', 100) + item('cpu.idle', 3)))
    expect(p.cpu.clusters).toEqual([])
    expect(p.cpu.scalingPolicies).toEqual([])
    expect(p.warnings).toHaveLength(1)
    expect(p.warnings[0]).toMatch(/^no CPU power model/)
  })
  test('a policy number past the last possible CPU is refused', () => {
    const e = expectError(
      () => parsePowerProfile(device(item('cpu.scaling_policy_power.policy4294967295', 1))),
      PowerProfileErrors.BAD_INDEX,
    )
    expect(e.details.key).toBe('cpu.scaling_policy_power.policy4294967295')
  })
})

describe('power_profile.xml bounds (issue 16)', () => {
  test('cpu.core_power.cluster4294967295 is refused at once, not counted up to', () => {
    const e = expectError(
      () =>
        parsePowerProfile(
          '<device><array name="cpu.core_power.cluster4294967295"><value>1</value></array></device>',
        ),
      PowerProfileErrors.BAD_INDEX,
    )
    expect(e.message).toContain('cluster4294967295')
    expect(e.message).toContain('no cluster0')
  })
  test('with cpu.clusters.cores it is a count mismatch', () => {
    expectError(
      () =>
        parsePowerProfile(
          `<device><array name="cpu.clusters.cores"><value>4</value></array>
           <array name="cpu.core_power.cluster4294967295"><value>1</value></array></device>`,
        ),
      PowerProfileErrors.LENGTH_MISMATCH,
    )
  })
  test('clusters 0 and 1 without cpu.clusters.cores still read (one core each)', () => {
    const p = parsePowerProfile(
      `<device><array name="cpu.speeds.cluster0"><value>1</value></array>
       <array name="cpu.active.cluster0"><value>2</value></array>
       <array name="cpu.speeds.cluster1"><value>3</value></array>
       <array name="cpu.active.cluster1"><value>4</value></array></device>`,
    )
    expect(p.cpu.clusters.map((c) => [c.cores, c.speedsKhz[0], c.corePowerMa[0]])).toEqual([
      [1, 1, 2],
      [1, 3, 4],
    ])
  })
  test('more than 1024 cores in all is a bad value', () => {
    expectError(
      () =>
        parsePowerProfile(
          '<device><array name="cpu.clusters.cores"><value>4</value><value>4294967295</value></array></device>',
        ),
      PowerProfileErrors.BAD_VALUE,
    )
  })
  test('time is linear in the input: a value that is a long digit run', () => {
    expectLinear(
      (n) => `<device name="Android"><item name="screen.on">${'1'.repeat(n)}x</item></device>`,
      parsePowerProfile,
      4000,
    )
  })
  test('time is linear in the input: many entries', () => {
    expectLinear(
      (n) =>
        `<device name="Android">${'<item name="screen.on">1.5</item>'.repeat(n / 32)}</device>`,
      parsePowerProfile,
      4000,
    )
  })
})

describe('power_profile.xml shared corpus (../shared/corpus/1_power_profile)', () => {
  const shared = sharedCorpus('1_power_profile')
  const expected = readGolden('shared-corpus-golden.json') as Record<
    string,
    {
      items: number
      arrays: number
      cores: number[] | null
      batteryCapacityMah: number | null
      displays: number
      screenOnMa: number | null
      screenFullMa: number | null
      policies: number[]
    }
  >
  test.skipIf(shared === undefined)('every file has a golden entry', () => {
    expect(shared?.files).toEqual(Object.keys(expected).sort())
  })
  test.skipIf(shared === undefined).each(Object.keys(expected))(
    '%s parses without warnings and matches the golden summary',
    (file) => {
      const g = expected[file]
      if (shared === undefined || g === undefined) return
      const p = parsePowerProfile(readFileSync(join(shared.dir, file), 'utf8'))
      expect(p.warnings).toEqual([])
      expect(Object.keys(p.items).length, 'items').toBe(g.items)
      expect(Object.keys(p.arrays).length, 'arrays').toBe(g.arrays)
      expect(p.batteryCapacityMah ?? null, 'capacity').toBe(g.batteryCapacityMah)
      expect(p.displays.length, 'displays').toBe(g.displays)
      expect(p.displays[0]?.screenOnMa ?? null, 'screen.on').toBe(g.screenOnMa)
      expect(p.displays[0]?.screenFullMa ?? null, 'screen.full').toBe(g.screenFullMa)
      if (g.policies.length > 0) {
        expect(p.cpu.scalingPolicies.map((x) => x.policy)).toEqual(g.policies)
      } else {
        expect(p.cpu.clusters.map((c) => c.cores)).toEqual(g.cores ?? [1])
        let first = 0
        const derived = (g.cores ?? [1]).map((cores) => {
          const at = first
          first += cores
          return at
        })
        expect(p.cpu.scalingPolicies.map((x) => x.policy)).toEqual(derived)
      }
      expect(parsePowerProfile(formatPowerProfile(p))).toEqual(p)
    },
  )
})
