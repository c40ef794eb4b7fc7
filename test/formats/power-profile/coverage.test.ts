/**
 * What a profile covers and AOSP's placeholder (src/formats/power-profile/coverage.ts): the
 * placeholder is told apart from every real profile of the corpus.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  describeCoverage,
  isAospPlaceholder,
  parsePowerProfile,
  powerProfileCoverage,
} from '../../../src/formats/power-profile/index.js'
import { sharedCorpus } from '../_shared-corpus.js'

const CORPUS = join(import.meta.dirname, '..', '..', 'fixtures', 'corpus', '1_power_profile')
const PLACEHOLDER = join(
  import.meta.dirname,
  '../../../src/virtual-device/profiles/aosp_default_power_profile.xml',
)
const load = (file: string) => parsePowerProfile(readFileSync(file, 'utf8'))

describe("AOSP's placeholder", () => {
  /**
   * Profiles E-MANAFA pulled from a Poco M3, a Galaxy Tab S2 and the emulator hold AOSP's
   * placeholder values too (test/fixtures/corpus/PROVENANCE.md: "placeholder values"): what
   * those phones' framework-res.apk carried, not their hardware's currents.
   */
  const PULLED_PLACEHOLDERS = new Set([
    'emanafa_power_profile_m2010j19cg.xml',
    'emanafa_power_profile_sdk_gphone_x86_arm.xml',
    'emanafa_power_profile_sm-t810.xml',
  ])
  const shared = sharedCorpus('1_power_profile')
  const files = [
    PLACEHOLDER,
    ...readdirSync(CORPUS).map((f) => join(CORPUS, f)),
    ...(shared?.files.map((f) => join(shared.dir, f)) ?? []),
  ].filter((f) => f.endsWith('.xml'))

  test.each(files)('%s', (file) => {
    const name = file.slice(file.lastIndexOf('/') + 1)
    const placeholder =
      file === PLACEHOLDER || name.startsWith('adttoolsbase_') || PULLED_PLACEHOLDERS.has(name)
    expect(isAospPlaceholder(load(file))).toBe(placeholder)
  })

  test('one real value is enough to tell it is not (a screen at 0.1 mA but a real CPU)', () => {
    const p = parsePowerProfile(
      '<device name="Android"><item name="screen.on">0.1</item><item name="screen.full">0.1</item><item name="gps.on">0.1</item><array name="cpu.speeds.cluster0"><value>300000</value></array><array name="cpu.active.cluster0"><value>40</value></array></device>',
    )
    expect(isAospPlaceholder(p)).toBe(false)
  })
})

describe('coverage', () => {
  test('Pixel 6: three clusters with their frequency ranges, a display, radios, GPS, battery', () => {
    const c = powerProfileCoverage(load(join(CORPUS, 'aosp_pixel6_oriole_power_profile.xml')))
    expect(c).toEqual({
      cpu: {
        kind: 'clusters',
        clusters: [
          { cores: 4, steps: 11, minKhz: 300000, maxKhz: 1803000 },
          { cores: 2, steps: 14, minKhz: 400000, maxKhz: 2253000 },
          { cores: 2, steps: 17, minKhz: 500000, maxKhz: 2802000 },
        ],
      },
      displays: 1,
      radios: ['wifi', 'cellular', 'bluetooth'],
      gps: true,
      batteryCapacityMah: 4614,
    })
    expect(describeCoverage(c)).toBe(
      '3 CPU clusters (4+2+2 cores, 300–2802 MHz), 1 display, wifi, cellular, bluetooth, GPS, battery 4614 mAh',
    )
  })

  test('Android 14+ policies: steps without frequencies', () => {
    const c = powerProfileCoverage(
      parsePowerProfile(
        '<device name="Android"><item name="cpu.scaling_policy_power.policy0">2</item><array name="cpu.scaling_step_power.policy0"><value>10</value><value>20</value></array><array name="cpu.scaling_step_power.policy4"><value>30</value></array></device>',
      ),
    )
    expect(c.cpu).toEqual({
      kind: 'policies',
      policies: [
        { policy: 0, steps: 2 },
        { policy: 4, steps: 1 },
      ],
    })
    expect(describeCoverage(c)).toBe(
      "2 CPU scaling policies (Android 14+: policy0 2 steps, policy4 1 steps; frequencies from the phone's cpufreq), no screen, no radios, no GPS",
    )
  })
})
