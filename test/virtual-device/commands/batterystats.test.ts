import { describe, expect, test } from 'vitest'
import {
  checkinMahToJ,
  formatBatterystatsHistory,
  historyTimeline,
  parseBatterystatsHistory,
  stateDurationNs,
  summarizeBatterystatsCheckin,
  type HistoryRecord,
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
    // The history records changes only: what is still on (the leaking GPS) ends at the dump.
    const now = h.clock.nowNs('boottime')
    const timeline = historyTimeline(parseBatterystatsHistory(text), { endNs: now - reset })
    // The leaking GPS listener is on from map entry until now: ≈ 15 s (the history has ms resolution).
    const gpsOn = h.phone.sim.hardware
      .filter((x) => x.kind === 'gps')
      .reduce((a, x) => a + Math.min(x.endNs, now) - x.startNs, 0)
    expect(Math.abs(stateDurationNs(timeline, 'gps') - gpsOn)).toBeLessThan(2e6)
    expect(stateDurationNs(timeline, 'screen')).toBeLessThan(now - reset)
  })

  test('a first record after the reset holds the whole state, in HistoryPrinter order, as a real phone prints it', async () => {
    const h = harness()
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    await h.sh(`input tap ${centerOf(h.phone, 'map')}`)
    await h.sh('sleep 1')
    await h.sh('dumpsys batterystats --reset')
    const text = (await h.sh('dumpsys batterystats --history')).out
    // Like redmik80pro_android15_batterystats0.txt line 3: battery fields, then the state bits in
    // BatteryStats.HISTORY_STATE_DESCRIPTIONS order, `brightness=` only when it is not dark.
    expect(text.split('\n')[2]).toMatch(
      /^ {20}0 \(2\) \d{3} status=charging health=good plug=usb temp=\d+ volt=\d+ \+sensor \+gps \+screen \+plugged brightness=dim \+charging$/,
    )
    // A --history dump ends with a blank line and has no NEXT:.
    expect(text.endsWith('\n\n')).toBe(true)
    expect(text).not.toContain('NEXT:')
  })

  test('--history-start <t>: the records from history time t (boottime ms), the first as a full state, then NEXT:', async () => {
    const h = harness()
    await h.sh('dumpsys batterystats --reset')
    const resetMs = Math.floor(h.clock.nowNs('boottime') / 1e6)
    const all = (await h.sh('dumpsys batterystats --history-start 0')).out
    expect(parseBatterystatsHistory(all).next, 'NEXT: the last record + 1').toBe(resetMs + 1)
    expect(all.split('\n').slice(1, 4)).toEqual([
      expect.stringMatching(/^ {20}0 \(2\) RESET:TIME: /),
      // dumpHistoryLocked prints the first record again as an update: the whole state.
      expect.stringMatching(
        /^ {20}0 \(2\) \d{3} status=charging .* \+screen \+plugged brightness=dim/,
      ),
      expect.stringMatching(/^ {20}0 \(2\) \d{3}$/),
    ])
    await h.sh('am start -W -n com.example.trails/.MainActivity')
    await h.sh(`input tap ${centerOf(h.phone, 'map')}`)
    const mapMs = Math.floor(h.clock.nowNs('boottime') / 1e6)
    await h.sh('sleep 2')
    await h.sh(`input tap ${centerOf(h.phone, 'sync')}`)
    await h.sh(`input tap ${centerOf(h.phone, 'sync-now')}`)
    await h.sh('sleep 1')
    const full = parseBatterystatsHistory((await h.sh('dumpsys batterystats --history')).out)
    const since = (await h.sh(`dumpsys batterystats --history-start ${mapMs + 500}`)).out
    const part = parseBatterystatsHistory(since)
    const records = (x: typeof full) =>
      x.items.filter((i): i is HistoryRecord => i.kind === 'record')
    const last = records(full).at(-1)!
    expect(part.next).toBe(resetMs + last.tNs / 1e6 + 1)
    // Printed times stay relative to the first record of the history (the reset).
    const [time, first, ...rest] = records(part)
    expect(time?.command).toBe('time')
    expect(first?.tNs).toBe(time?.tNs)
    expect((first?.tNs ?? 0) / 1e6 + resetMs).toBeGreaterThanOrEqual(mapMs + 500)
    // The GPS switched on before t is on in the first record; later changes as in --history.
    expect(first?.tokens).toContainEqual({ kind: 'flag', on: true, name: 'gps' })
    expect(rest.map((r) => [r.tNs, r.tokens])).toEqual(
      records(full)
        .filter((r) => r.tNs > (first?.tNs ?? 0))
        .map((r) => [r.tNs, r.tokens]),
    )
    // The writer reproduces it byte for byte (the section: up to the blank line).
    expect(formatBatterystatsHistory(part)).toBe(since.slice(0, since.indexOf('\n\n') + 1))
  })

  test('--history-start without its time prints what the framework prints', async () => {
    const h = harness()
    const r = await h.sh('dumpsys batterystats --history-start')
    expect(r.out).toMatch(
      /^Missing time argument for --history-since\nBattery stats \(batterystats\) dump options:\n/,
    )
    expect(r.status).toBe(0)
  })

  test('Android 15 stamps the history with MonotonicClock: ahead of boottime by the phone’s earlier boots', async () => {
    const h = harness()
    h.device.props.set('ro.build.version.sdk', '35')
    await h.sh('dumpsys batterystats --reset')
    const bootMs = Math.floor(h.clock.nowNs('boottime') / 1e6)
    const next = parseBatterystatsHistory(
      (await h.sh('dumpsys batterystats --history-start 0')).out,
    ).next
    expect((next ?? 0) - 1 - bootMs).toBe(3 * 86_400_000 + 12_345)
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
