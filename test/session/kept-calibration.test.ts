// `calibration: 'keep'` reuses a calibration only when this version of the fit made it, for a phone
// with as many clusters: one kept by the fit that threw cpu.active's measurement away is measured
// again rather than reused with its bias.
import { describe, expect, test } from 'vitest'
import {
  CALIBRATION_FIT_VERSION,
  usableKeptCalibration,
  type KeptCalibration,
} from '../../src/session/calibration.js'

const kept: KeptCalibration = {
  kind: 'active',
  scales: { clusters: [1.28, 1.4, 1.38], active: 0.74 },
  clusterSe: [0.004, 0.005, 0.002],
  activeSe: 0.07,
  measuredAt: '2026-11-30T01:00:00.000Z',
  serial: 'norails-0001',
  fitVersion: CALIBRATION_FIT_VERSION,
}

describe('usableKeptCalibration', () => {
  test('this version of the fit, as many clusters: reused, without the version field', () => {
    const { fitVersion: _, ...calibration } = kept
    expect(usableKeptCalibration(JSON.parse(JSON.stringify(kept)), 3)).toEqual(calibration)
  })

  test('an earlier fit (no version), another phone layout, a nominal one or junk: measured again', () => {
    const { fitVersion: _, ...unversioned } = kept
    expect(usableKeptCalibration(unversioned, 3)).toBeUndefined()
    expect(usableKeptCalibration({ ...kept, fitVersion: CALIBRATION_FIT_VERSION - 1 }, 3)).toBe(
      undefined,
    )
    expect(usableKeptCalibration(kept, 2)).toBeUndefined()
    expect(usableKeptCalibration({ ...kept, kind: 'nominal' }, 3)).toBeUndefined()
    for (const junk of [null, 3, 'active', [], { fitVersion: CALIBRATION_FIT_VERSION }])
      expect(usableKeptCalibration(junk, 3), JSON.stringify(junk)).toBeUndefined()
  })
})
