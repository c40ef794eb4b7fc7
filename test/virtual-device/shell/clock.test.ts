import { describe, expect, it } from 'vitest'
import { fastClock, realTimeClock } from '../../../src/virtual-device/clock.js'

describe('fastClock', () => {
  it('moves only on sleep/advance, all clocks together', async () => {
    const c = fastClock({ bootOffsetNs: 1e12, suspendedNs: 1e11, realtimeStartNs: 5e18 })
    expect(c.nowNs('boottime')).toBe(1e12)
    expect(c.nowNs('monotonic')).toBe(9e11)
    expect(c.nowNs('realtime')).toBe(5e18)
    await c.sleep(120e9)
    c.advance(5)
    expect(c.nowNs('boottime')).toBe(1e12 + 120e9 + 5)
    expect(c.nowNs('monotonic')).toBe(9e11 + 120e9 + 5)
    c.advance(-10)
    expect(c.nowNs('boottime')).toBe(1e12 + 120e9 + 5)
  })

  it('rejects on an aborted signal without moving', async () => {
    const c = fastClock()
    const t = c.nowNs('boottime')
    const a = new AbortController()
    a.abort()
    await expect(c.sleep(1e9, a.signal)).rejects.toBeDefined()
    expect(c.nowNs('boottime')).toBe(t)
  })
})

describe('realTimeClock', () => {
  it('is monotonic, boottime ahead of monotonic by the suspended time, realtime near host time', async () => {
    const c = realTimeClock({ suspendedNs: 7e9 })
    const b1 = c.nowNs('boottime')
    await c.sleep(2e6)
    const b2 = c.nowNs('boottime')
    expect(b2).toBeGreaterThan(b1)
    expect(c.nowNs('boottime') - c.nowNs('monotonic')).toBeGreaterThanOrEqual(7e9 - 1e6)
    expect(Math.abs(c.nowNs('realtime') / 1e6 - Date.now())).toBeLessThan(60_000)
    expect(b1).toBeGreaterThan(3600e9)
  })

  it('sleep rejects when aborted midway', async () => {
    const c = realTimeClock()
    const a = new AbortController()
    const p = c.sleep(60e9, a.signal)
    a.abort()
    await expect(p).rejects.toBeDefined()
  })
})
