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

const corpus = join(import.meta.dirname, '../../fixtures/corpus/1_power_profile')
const golden = JSON.parse(
  readFileSync(
    join(import.meta.dirname, '../../fixtures/power-profile/corpus-golden.json'),
    'utf8',
  ),
) as Record<
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
