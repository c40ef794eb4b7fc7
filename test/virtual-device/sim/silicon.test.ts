/**
 * The phone's silicon departs from the profile it ships (sim/silicon.ts): seeded factors per
 * cluster, per frequency step and for `cpu.active`, the default of the phone physics; the ground
 * truth and the rails follow the true currents, the shipped profile stays nominal.
 */
import { describe, expect, test } from 'vitest'
import { fastClock } from '../../../src/virtual-device/clock.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'
import { createSimPhone } from '../../../src/virtual-device/sim/phone.js'
import {
  buildPowerModel,
  defaultPowerProfile,
  maToW,
} from '../../../src/virtual-device/sim/power-model.js'
import { siliconOf, type Silicon } from '../../../src/virtual-device/sim/silicon.js'
import type { Physics } from '../../../src/virtual-device/sim/other-processes.js'
import { checkInvariants } from './_sim.js'

const profile = defaultPowerProfile()
const nominal = buildPowerModel(profile)

function phone(seed: number, options: { physics?: Physics; silicon?: Silicon } = {}) {
  const clock = fastClock()
  const p = createSimPhone({ app: DEMO_APP_MODEL, powerProfile: profile, seed, clock, ...options })
  return { phone: p, clock }
}

describe('siliconOf', () => {
  test('nominal silicon is the profile itself (factors 1)', () => {
    const { power, report } = siliconOf(nominal, 'nominal', 3)
    expect(power).toBe(nominal)
    expect(report.clusters.map((c) => c.factor)).toEqual([1, 1, 1])
    expect(report.clusters.flatMap((c) => c.stepFactors).every((f) => f === 1)).toBe(true)
    expect(report.cpuActive).toEqual({
      factor: 1,
      nominalMa: nominal.cpuActiveMa,
      trueMa: nominal.cpuActiveMa,
    })
  })

  test('deviated: per cluster d_k = 1 ± U(0.10, 0.30) on every step and on the cluster cost, each step ±2% more, cpu.active its own', () => {
    const { power, report } = siliconOf(nominal, 'deviated', 3)
    expect(report.silicon).toBe('deviated')
    for (const [k, c] of report.clusters.entries()) {
      const size = Math.abs(c.factor - 1)
      expect(size, `cluster ${k}`).toBeGreaterThanOrEqual(0.1)
      expect(size, `cluster ${k}`).toBeLessThanOrEqual(0.3)
      const n = nominal.clusters[k]!
      expect(c.nominal).toEqual({ corePowerMa: n.corePowerMa, clusterPowerMa: n.clusterPowerMa })
      expect(c.stepFactors).toHaveLength(n.corePowerMa.length)
      for (const [j, e] of c.stepFactors.entries()) {
        expect(Math.abs(e - 1), `cluster ${k} step ${j}`).toBeLessThanOrEqual(0.05 + 1e-12)
        expect(c.true.corePowerMa[j]).toBeCloseTo(n.corePowerMa[j]! * c.factor * e, 12)
      }
      expect(c.true.clusterPowerMa).toBeCloseTo(n.clusterPowerMa * c.factor, 12)
      // The simulation's model carries exactly the true tables.
      const t = power.clusters[k]!
      expect(t.corePowerMa).toEqual(c.true.corePowerMa)
      expect(t.clusterPowerMa).toBe(c.true.clusterPowerMa)
      expect(t.speedsKhz).toEqual(n.speedsKhz)
      expect(t.busyFreqKhz).toBe(n.busyFreqKhz)
      expect(t.busyCoreMa).toBe(c.true.corePowerMa[n.speedsKhz.indexOf(n.busyFreqKhz)])
    }
    const active = Math.abs(report.cpuActive.factor - 1)
    expect(active).toBeGreaterThanOrEqual(0.1)
    expect(active).toBeLessThanOrEqual(0.3)
    expect(power.cpuActiveMa).toBeCloseTo(nominal.cpuActiveMa * report.cpuActive.factor, 12)
    // Everything but the CPU as the profile says.
    const { clusters: _c, cpuActiveMa: _a, ...rest } = power
    const { clusters: _nc, cpuActiveMa: _na, ...nominalRest } = nominal
    expect(rest).toEqual(nominalRest)
  })

  test('deterministic for a seed; seeds differ; over many seeds both signs and the spreads as specified', () => {
    expect(siliconOf(nominal, 'deviated', 5).report).toEqual(
      siliconOf(nominal, 'deviated', 5).report,
    )
    expect(siliconOf(nominal, 'deviated', 5).report).not.toEqual(
      siliconOf(nominal, 'deviated', 6).report,
    )
    const factors: number[] = []
    const steps: number[] = []
    for (let seed = 1; seed <= 300; seed++) {
      const { report } = siliconOf(nominal, 'deviated', seed)
      factors.push(...report.clusters.map((c) => c.factor), report.cpuActive.factor)
      steps.push(...report.clusters.flatMap((c) => c.stepFactors))
    }
    expect(factors.some((f) => f < 0.9)).toBe(true)
    expect(factors.some((f) => f > 1.1)).toBe(true)
    expect(factors.every((f) => Math.abs(f - 1) >= 0.1 && Math.abs(f - 1) <= 0.3)).toBe(true)
    const sd = Math.sqrt(steps.reduce((a, e) => a + (e - 1) ** 2, 0) / steps.length)
    expect(sd, 'step factors: sd ≈ 0.02').toBeGreaterThan(0.018)
    expect(sd, 'step factors: sd ≈ 0.02').toBeLessThan(0.022)
    // Clipped to ±5% (1 ± 0.05 is not exact in floating point).
    expect(Math.max(...steps.map((e) => Math.abs(e - 1)))).toBeLessThanOrEqual(0.05 + 1e-12)
  })
})

describe('createSimPhone', () => {
  test('deviated by default with the phone physics, nominal with the simple one; either can be forced', () => {
    expect(phone(1, { physics: 'phone' }).phone.silicon.silicon).toBe('deviated')
    expect(phone(1, { physics: 'simple' }).phone.silicon.silicon).toBe('nominal')
    expect(phone(1).phone.silicon.silicon).toBe('nominal')
    expect(phone(1, { physics: 'phone', silicon: 'nominal' }).phone.sim.power).toEqual(nominal)
    const forced = phone(1, { physics: 'simple', silicon: 'deviated' }).phone
    expect(forced.sim.power.clusters.map((c) => c.corePowerMa)).toEqual(
      forced.silicon.clusters.map((c) => c.true.corePowerMa),
    )
  })

  test('the phone ships the nominal profile; its simulation runs on the true currents', () => {
    const { phone: p } = phone(4, { physics: 'phone' })
    expect(p.powerProfile).toBe(profile)
    expect(p.silicon).toEqual(siliconOf(nominal, 'deviated', 4).report)
    expect(p.sim.power.clusters[2]?.corePowerMa).not.toEqual(nominal.clusters[2]?.corePowerMa)
  })

  test('ground truth and rails follow the true currents: same schedule, CPU rails scaled as the silicon says', () => {
    // The simple physics schedules the same whatever the currents (fixed busy frequencies, pinned
    // threads), so the two phones run the same slices and only their power differs.
    const run = (silicon: Silicon) => {
      const { phone: p, clock } = phone(9, { physics: 'simple', silicon })
      p.sim.launch(4321)
      const from = clock.nowNs('boottime')
      const feed = p.sim.currentScreen()?.widgets.find((w) => w.contentDesc === 'refresh')
      p.sim.tap((feed?.bounds[0] ?? 0) + 1, (feed?.bounds[1] ?? 0) + 1)
      clock.advance(3e9)
      const to = clock.nowNs('boottime')
      return { p, truth: p.sim.groundTruth(from, to) }
    }
    const a = run('nominal')
    const b = run('deviated')
    checkInvariants(b.truth)
    expect(b.p.sim.slices.map(({ startNs, endNs, core }) => ({ startNs, endNs, core }))).toEqual(
      a.p.sim.slices.map(({ startNs, endNs, core }) => ({ startNs, endNs, core })),
    )
    expect(b.truth.components.screen).toBe(a.truth.components.screen)
    expect(b.truth.components.wifi).toBe(a.truth.components.wifi)
    for (const [k, c] of b.p.silicon.clusters.entries()) {
      // On a cluster rail: core time × core current at the busy step + cluster-active time × the
      // cluster's cost. Solve the nominal run for the cluster-active time, then predict.
      const n = nominal.clusters[k]!
      const rail = n.rail
      const coreNs = a.p.sim.slices
        .filter((s) => s.cluster === k)
        .reduce((sum, s) => sum + (s.endNs - s.startNs), 0)
      const coreJ = (maToW(nominal, n.busyCoreMa) * coreNs) / 1e9
      const clusterJ = (a.truth.rails[rail] ?? 0) - coreJ
      const step = n.speedsKhz.indexOf(n.busyFreqKhz)
      const expected = c.factor * ((c.stepFactors[step] ?? 1) * coreJ + clusterJ)
      expect(b.truth.rails[rail], rail).toBeCloseTo(expected, 9)
    }
    expect(b.truth.appCpuEnergyJ).not.toBeCloseTo(a.truth.appCpuEnergyJ, 6)
  })
})

describe('codePowerSpread: a core draws more or less with the code it runs', () => {
  // The simple physics schedules the same slices whatever the currents: only their power differs.
  const run = (codePowerSpread?: number) => {
    const clock = fastClock()
    const p = createSimPhone({
      app: DEMO_APP_MODEL,
      powerProfile: profile,
      seed: 5,
      clock,
      physics: 'simple',
      ...(codePowerSpread === undefined ? {} : { codePowerSpread }),
    })
    p.sim.launch(4321)
    const from = clock.nowNs('boottime')
    const feed = p.sim.currentScreen()?.widgets.find((w) => w.contentDesc === 'refresh')
    p.sim.tap((feed?.bounds[0] ?? 0) + 1, (feed?.bounds[1] ?? 0) + 1)
    clock.advance(3e9)
    return { p, truth: p.sim.groundTruth(from, clock.nowNs('boottime')) }
  }

  test('0 (the default) is a core power of its frequency only; σ gives each method its own seeded factor', () => {
    const base = run()
    expect(run(0).truth).toEqual(base.truth)
    const spread = run(0.1)
    checkInvariants(spread.truth)
    const factors = new Map<string, number>()
    spread.p.sim.slices.forEach((s, i) => {
      const plain = base.p.sim.slices[i]
      const method = spread.p.sim.calls[s.callId]?.method ?? ''
      const f = s.coreW / (plain?.coreW ?? Number.NaN)
      const seen = factors.get(method)
      if (seen !== undefined) expect(f, method).toBeCloseTo(seen, 12)
      factors.set(method, f)
    })
    const all = [...factors.values()]
    expect(all.length).toBeGreaterThan(3)
    expect(all.every((f) => f >= Math.exp(-0.2) - 1e-12 && f <= Math.exp(0.2) + 1e-12)).toBe(true)
    expect(new Set(all.map((f) => f.toFixed(6))).size).toBeGreaterThan(1)
    // The same seed draws the same factors.
    expect(run(0.1).truth).toEqual(spread.truth)
  })
})
