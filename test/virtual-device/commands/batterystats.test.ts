import { describe, expect, test } from 'vitest'
import {
  checkinMahToJ,
  historyTimeline,
  parseBatterystatsHistory,
  stateDurationNs,
  summarizeBatterystatsCheckin,
} from '../../../src/formats/batterystats/index.js'
import { centerOf, harness } from './_harness.js'

describe('dumpsys batterystats', () => {
  test('--reset, then --history shows what happened, readable by the history parser', async () => {
    const h = harness()
    expect((await h.sh('dumpsys batterystats --reset')).out).toBe('Battery stats reset.\n')
    const reset = h.clock.nowNs('boottime')
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    await h.sh(`input tap ${centerOf(h.phone, 'map')}`)
    await h.sh('sleep 3')
    await h.sh(`input tap ${centerOf(h.phone, 'sync')}`)
    await h.sh(`input tap ${centerOf(h.phone, 'sync-now')}`)
    await h.sh('sleep 10')
    await h.sh('input keyevent 26')
    await h.sh('sleep 2')
    const text = (await h.sh('dumpsys batterystats --history')).out
    expect(text).toMatch(/^Battery History \(/)
    // Same indentation as a real phone's history (corpus: redmik80pro_android15_batterystats0.txt).
    expect(text).toMatch(/\n {20}0 \(2\) RESET:TIME: \d{4}-\d\d-\d\d-\d\d-\d\d-\d\d\n/)
    expect(text).toContain('+top=u0a187:"com.example.trails"')
    expect(text).toContain('+gps')
    expect(text).toContain('+mobile_radio')
    expect(text).toContain('-screen')
    expect(text).toContain('status=charging health=good plug=usb')
    const timeline = historyTimeline(parseBatterystatsHistory(text))
    // The leaking GPS listener is on from map entry until now: ≈ 15 s (the history has ms resolution).
    const now = h.clock.nowNs('boottime')
    const gpsOn = h.phone.sim.hardware
      .filter((x) => x.kind === 'gps')
      .reduce((a, x) => a + Math.min(x.endNs, now) - x.startNs, 0)
    expect(Math.abs(stateDurationNs(timeline, 'gps') - gpsOn)).toBeLessThan(2e6)
    expect(stateDurationNs(timeline, 'screen')).toBeLessThan(now - reset)
  })

  test('-c checkin power rows add up to the ground truth since reset', async () => {
    const h = harness()
    await h.sh('dumpsys batterystats --reset')
    const reset = h.clock.nowNs('boottime')
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    await h.sh(`input tap ${centerOf(h.phone, 'feed-list')}`)
    await h.sh('sleep 5')
    const text = (await h.sh('dumpsys batterystats -c')).out
    const now = h.clock.nowNs('boottime')
    const summary = summarizeBatterystatsCheckin(text)
    expect(summary.packagesByUid[10187]).toEqual(['com.example.trails'])
    const v = h.phone.sim.power.voltageV
    const totalJ = summary.powerItems.reduce((a, r) => a + checkinMahToJ(r.totalMah, v), 0)
    const gt = h.phone.sim.groundTruth(reset, now)
    expect(Math.abs(totalJ - gt.totalEnergyJ) / gt.totalEnergyJ).toBeLessThan(1e-3)
    const pws = summary.powerSummary[0]
    expect(pws?.capacityMah).toBe(4614)
    const app = summary.powerItems.find((r) => r.label === 'uid' && r.uid === 10187)
    expect(checkinMahToJ(app?.totalMah ?? 0, v)).toBeCloseTo(
      gt.appCpuEnergyJ + gt.components.gps,
      3,
    )
  })
})
