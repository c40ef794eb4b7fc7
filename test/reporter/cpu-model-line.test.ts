// The summary's line for a phone without rails: how its CPU model was calibrated, and what the
// run's windows say of it — nothing while they are too few to tell.
import { describe, expect, test } from 'vitest'
import { describeCpuModel, type ReportCpuModel } from '../../reporter/report.js'

const phone = (over: Partial<ReportCpuModel>): ReportCpuModel => ({
  device: 'Moto (ZY22)',
  calibration: 'active',
  clusterScales: [0.81, 1.24],
  activeScale: 0.7,
  ...over,
})
const fit = (clusterScales: (number | null)[], windows: number, agrees?: boolean) => ({
  windows,
  clusterScales,
  clusterSe: clusterScales.map((s) => (s === null ? null : 0.03)),
  cpuShare: 0.042,
  ...(agrees === undefined ? {} : { agreesWithCalibration: agrees }),
})

describe('describeCpuModel', () => {
  test('calibrated with busy loops; the windows agree, disagree, or cannot tell', () => {
    expect(describeCpuModel(phone({ runFit: fit([0.8, 1.2], 20, true) }))).toBe(
      "Moto (ZY22): calibrated with busy loops (little 0.81×, big 1.24× the profile's currents; cpu.active 0.70×); the run's 20 windows agree (the CPU is 4.2% of their energy)",
    )
    expect(describeCpuModel(phone({ runFit: fit([1.1, 1.2], 20, false) }))).toMatch(
      /the run's 20 windows disagree \(little 1\.10×, big 1\.20×\): the phone may have changed since it was calibrated .*; calibrate again$/,
    )
    expect(describeCpuModel(phone({ runFit: fit([null, null], 12) }))).toMatch(
      /the run's 12 windows cannot tell its scales \(the CPU is 4\.2% of their energy\)$/,
    )
  })

  test('too few windows to tell anything: no word about them', () => {
    expect(describeCpuModel(phone({ runFit: fit([null, null], 3) }))).toBe(
      "Moto (ZY22): calibrated with busy loops (little 0.81×, big 1.24× the profile's currents; cpu.active 0.70×)",
    )
  })

  test('calibrated over the windows, or the profile as shipped', () => {
    expect(describeCpuModel(phone({ calibration: 'passive', activeScale: undefined }))).toBe(
      "Moto (ZY22): calibrated over the run's windows (little 0.81×, big 1.24× the profile's currents; cpu.active as the profile's)",
    )
    expect(describeCpuModel(phone({ calibration: 'nominal' }))).toBe(
      "Moto (ZY22): at the profile's currents as shipped",
    )
  })
})
