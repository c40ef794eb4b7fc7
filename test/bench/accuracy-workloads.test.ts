// The accuracy benchmark's generated app models: valid against the app-model schema, and EDATA's
// random schedule (Algorithm 1) runs on the virtual device exactly as planned.
import { describe, expect, test } from 'vitest'
import fc from 'fast-check'
import {
  ACCEL_METHOD,
  ACCEL_TAP,
  ACCEL_TAP_B,
  EDATA_CLASSES,
  accelerometerApp,
  edataMethod,
  edataRandomWorkload,
} from '../../bench/accuracy/workloads.js'
import { startFastPhone, useBenchPhysics } from '../../bench/accuracy/session.js'
import { validateAppModel } from '../../src/virtual-device/index.js'

describe('EDATA random workload generator', () => {
  test('probabilities sum to 1 and busy time never exceeds the window (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), fc.constantFrom(10, 100), (seed, ms) => {
        const w = edataRandomWorkload(seed, ms, 5)
        expect(w.classProbabilities.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 12)
        expect(w.sleepProbability).toBeGreaterThanOrEqual(0.2)
        expect(w.sleepProbability).toBeLessThan(0.6)
        const busy = w.plannedBusyS.reduce((a, b) => a + b, 0)
        expect(busy).toBeLessThanOrEqual(5 + 1e-9)
        expect(w.taps.length).toBe(w.app.screens[0]?.widgets.length)
        expect(() => validateAppModel(w.app)).not.toThrow()
      }),
      { numRuns: 30 },
    )
  })

  // Every planned call runs on both physics. CPU time equals the plan only at the reference
  // frequency (the simple physics): the phone physics' DVFS governor runs the same work at the
  // frequencies it picks.
  test.each(['simple', 'phone'] as const)(
    'the schedule runs on the fast virtual device as planned (%s physics)',
    async (physics) => {
      const w = edataRandomWorkload(42, 100, 10)
      useBenchPhysics(physics)
      const phone = await startFastPhone({ app: w.app, seed: 42, cpuJitter: 0 }).finally(() =>
        useBenchPhysics(undefined),
      )
      try {
        const from = await phone.nowNs()
        await phone.sh(w.taps.join('; '))
        await phone.sh('sleep 10.2')
        const truth = await phone.groundTruth(from, await phone.nowNs())
        for (let k = 0; k < EDATA_CLASSES; k++) {
          const planned = w.plannedBusyS[k] ?? 0
          const m = truth.methods.find((t) => t.method === edataMethod(k))
          expect(m?.calls ?? 0).toBe(Math.round(planned / 0.1))
          if (physics === 'simple') expect((m?.selfCpuNs ?? 0) / 1e9).toBeCloseTo(planned, 6)
        }
      } finally {
        await phone.close()
      }
    },
  )
})

test('accelerometer builds differ only in the reading cost', () => {
  const a = accelerometerApp(4)
  const b = accelerometerApp(4.4)
  expect(() => validateAppModel(a)).not.toThrow()
  const child = (m: typeof a) => m.screens[0]?.widgets[0]?.actions?.tap?.calls?.[0]?.children?.[0]
  expect(child(a)?.method).toBe(ACCEL_METHOD)
  expect(child(b)?.selfCpuMs).toBe(4.4)
  expect({ ...a, screens: [] }).toEqual({ ...b, screens: [] })
})

test('both builds on one phone: ACCEL_TAP runs build A, ACCEL_TAP_B build B (simple physics)', async () => {
  useBenchPhysics('simple')
  const phone = await startFastPhone({ app: accelerometerApp(4, 6), seed: 3, cpuJitter: 0 })
  try {
    const selfCpuMs = async (tap: string): Promise<number | undefined> => {
      const from = await phone.nowNs()
      await phone.sh(`${tap}; sleep 2.5`)
      const truth = await phone.groundTruth(from, await phone.nowNs())
      const m = truth.methods.find((t) => t.method === ACCEL_METHOD)
      expect(m?.calls).toBe(100)
      return m === undefined ? undefined : m.selfCpuNs / 1e6 / 100
    }
    expect(await selfCpuMs(ACCEL_TAP)).toBeCloseTo(4, 6)
    expect(await selfCpuMs(ACCEL_TAP_B)).toBeCloseTo(6, 6)
    expect(await selfCpuMs(ACCEL_TAP)).toBeCloseTo(4, 6)
  } finally {
    await phone.close()
    useBenchPhysics(undefined)
  }
})
