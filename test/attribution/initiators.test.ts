import { describe, expect, test } from 'vitest'
import { findInitiators } from '../../src/attribution/index.js'
import type { RailSeries, StackSampleSet } from '../../src/model/index.js'

const MS = 1e6
const window = { clock: 'boottime' as const, startNs: 0, endNs: 2000 * MS }
const isApp = (m: string): boolean => m.startsWith('com.example.')

/** A cumulative rail polled every 100 ms whose power is `powerAt(t)` W over each interval. */
function rail(name: string, subsystem: string, powerAt: (startMs: number) => number): RailSeries {
  const readings = [{ tNs: 0, energyJ: 0 }]
  for (let t = 100; t <= 2000; t += 100) {
    const prev = readings[readings.length - 1]!
    readings.push({ tNs: t * MS, energyJ: prev.energyJ + powerAt(t - 100) * 0.1 })
  }
  return { kind: 'cumulative', rail: name, subsystem, source: 'odpm', clock: 'boottime', readings }
}

const samples = (points: Array<[number, string[]]>): StackSampleSet => ({
  clock: 'boottime',
  lostCount: 0,
  samples: points.map(([ms, frames]) => ({ tNs: ms * MS, threadId: 1, frames })),
})

describe('findInitiators', () => {
  test('charges a radio burst to the innermost app method running just before it', () => {
    // Wi-Fi idles at 10 mW, bursts to 510 mW over [500, 800) ms: 0.5 W × 0.3 s = 0.15 J above floor.
    const wifi = rail('VSYS_PWR_WLAN_BT', 'WLAN-BT', (t) => (t >= 500 && t < 800 ? 0.51 : 0.01))
    const cpu = rail('S4M_VDD_CPUCL0', 'CPU(LITTLE)', () => 0.2)
    const execution = samples([
      [300, ['com.example.Feed.bind', 'android.os.Looper.loop']],
      [520, ['okhttp3.Call.execute', 'com.example.Repo.refresh', 'com.example.Activity.onClick']],
      [900, ['com.example.Feed.bind']],
    ])
    const { invocations, ongoing, orphans } = findInitiators([wifi, cpu], execution, window, {
      isAppMethod: isApp,
    })
    expect(ongoing).toEqual([])
    expect(orphans).toEqual([])
    expect(invocations).toHaveLength(1)
    const [burst] = invocations
    expect(burst).toMatchObject({
      method: 'com.example.Repo.refresh',
      component: 'wifi',
      rail: 'VSYS_PWR_WLAN_BT',
      startNs: 500 * MS,
      tailDurationNs: 300 * MS,
      stillActiveAtEnd: false,
    })
    expect(burst!.tailEnergyJ).toBeCloseTo(0.15, 12)
  })

  test('app code that starts more on a rail something left on is charged for the rise, not the earlier test', () => {
    // A Bluetooth link left on by an earlier test holds WLAN-BT 10 mW above idle; this window's
    // refresh brings Wi-Fi up to 810 mW over [1000, 1300) ms on the same rail.
    const wlan = rail('VSYS_PWR_WLAN_BT', 'WLAN-BT', (t) => (t >= 1000 && t < 1300 ? 0.81 : 0.02))
    const execution = samples([
      [400, ['com.example.Settings.onResume']],
      [950, ['okhttp3.Call.execute', 'com.example.FeedRepository.refresh']],
    ])
    const { invocations, ongoing } = findInitiators([wlan], execution, window, {
      isAppMethod: isApp,
      knownOn: new Set(['wifi']),
      floorsW: new Map([['VSYS_PWR_WLAN_BT', 0.01]]),
    })
    expect(invocations).toEqual([
      expect.objectContaining({
        method: 'com.example.FeedRepository.refresh',
        component: 'wifi',
        startNs: 1000 * MS,
        tailEnergyJ: expect.closeTo(0.79 * 0.3, 12),
        stillActiveAtEnd: false,
      }),
    ])
    // What was left on keeps only its own level: 10 mW over the whole window.
    expect(ongoing).toEqual([expect.objectContaining({ component: 'wifi' })])
    expect(ongoing[0]?.energyJ).toBeCloseTo(0.01 * 2, 12)
  })

  test('a rise already in the first interval is this window’s when the earlier one said what it left on', () => {
    // The Bluetooth link drew 2 mW when its window ended; this window's refresh wakes Wi-Fi in its
    // first 100 ms (the real case: the click right after the window opens).
    const wlan = rail('VSYS_PWR_WLAN_BT', 'WLAN-BT', (t) => (t < 600 ? 1.81 : 0.012))
    const execution = samples([[30, ['com.example.FeedRepository.refresh']]])
    const options = {
      isAppMethod: isApp,
      knownOn: new Set(['wifi']),
      floorsW: new Map([['VSYS_PWR_WLAN_BT', 0.01]]),
    }
    const told = findInitiators([wlan], execution, window, {
      ...options,
      knownLevelsW: new Map([['wifi', 0.002]]),
    })
    expect(told.invocations).toEqual([
      expect.objectContaining({
        method: 'com.example.FeedRepository.refresh',
        startNs: 0,
        tailEnergyJ: expect.closeTo((1.81 - 0.012) * 0.6, 12),
      }),
    ])
    expect(told.ongoing[0]?.energyJ).toBeCloseTo(0.002 * 0.6, 12)
    // Without the level it was left at, the first interval's level is what was left on.
    const untold = findInitiators([wlan], execution, window, options)
    expect(untold.invocations).toEqual([])
    expect(untold.ongoing[0]?.energyJ).toBeCloseTo(1.8 * 0.6, 12)
  })

  test('a tail left on that decays, or rises with no app code before it, stays the earlier test’s', () => {
    // A cellular tail from an earlier window: DCH, then FACH, then idle; app code runs meanwhile.
    const modem = rail('VSYS_PWR_MODEM', 'Modem', (t) => (t < 500 ? 0.61 : t < 1200 ? 0.31 : 0.01))
    // GPS left on, climbing once with no app code in the second before it.
    const gps = rail('L9S_GNSS_CORE', 'GPS', (t) => (t >= 1800 ? 0.4 : 0.05))
    const execution = samples([
      [100, ['com.example.Map.onResume']],
      [300, ['com.example.Feed.bind']],
      [700, ['com.example.Feed.bind']],
    ])
    const { invocations, ongoing } = findInitiators([modem, gps], execution, window, {
      isAppMethod: isApp,
      knownOn: new Set(['cellular', 'gps']),
      floorsW: new Map([
        ['VSYS_PWR_MODEM', 0.01],
        ['L9S_GNSS_CORE', 0],
      ]),
    })
    expect(invocations).toEqual([])
    expect(ongoing.map((o) => o.component)).toEqual(['cellular', 'gps'])
    expect(ongoing[0]?.energyJ).toBeCloseTo(0.6 * 0.5 + 0.3 * 0.7, 12)
    expect(ongoing[1]?.energyJ).toBeCloseTo(0.05 * 1.8 + 0.4 * 0.2, 12)
  })

  test('a burst running from the window start is ongoing (started before), and one still on at the end says so', () => {
    const gps = rail('L9S_GNSS_CORE', 'GPS', (t) => (t < 400 || t >= 1500 ? 0.3 : 0))
    const execution = samples([[1450, ['com.example.Map.onResume']]])
    const { invocations, ongoing } = findInitiators([gps], execution, window, {
      isAppMethod: isApp,
    })
    expect(ongoing).toEqual([
      {
        component: 'gps',
        rail: 'L9S_GNSS_CORE',
        energyJ: expect.closeTo(0.12, 12),
        endNs: 400 * MS,
        stillActiveAtEnd: false,
        endLevelW: expect.closeTo(0.3, 12),
      },
    ])
    expect(invocations).toEqual([
      expect.objectContaining({
        method: 'com.example.Map.onResume',
        component: 'gps',
        stillActiveAtEnd: true,
      }),
    ])
    expect(invocations[0]!.tailEnergyJ).toBeCloseTo(0.15, 12)
  })

  test('a burst in the first interval is started by app code running there, unless known to be on already', () => {
    const gps = rail('L9S_GNSS_CORE', 'GPS', () => 0.3)
    const execution = samples([[40, ['com.example.Map.onResume']]])
    const floorsW = new Map([['L9S_GNSS_CORE', 0]])
    const started = findInitiators([gps], execution, window, { isAppMethod: isApp, floorsW })
    expect(started.ongoing).toEqual([])
    expect(started.invocations).toEqual([
      expect.objectContaining({ method: 'com.example.Map.onResume', startNs: 0 }),
    ])
    const leaked = findInitiators([gps], execution, window, {
      isAppMethod: isApp,
      floorsW,
      knownOn: new Set(['gps']),
    })
    expect(leaked.invocations).toEqual([])
    expect(leaked.ongoing).toHaveLength(1)
  })

  test('a method sampled just after the reading that saw its radio wake started it (a sample closes its period)', () => {
    // The sync woke the modem at 499 ms; the reading at 500 ms saw it (1 ms at 1.1 W in 100 ms);
    // the sync's first task-clock sample closes its first millisecond of CPU time, at 500.5 ms.
    const modem = rail('VSYS_PWR_MODEM', 'Modem', (t) =>
      t === 400 ? 0.03 + 1.07 * 0.01 : t >= 500 ? 1.1 : 0.03,
    )
    const sampled = (periodNs?: number): StackSampleSet => ({
      clock: 'boottime',
      lostCount: 0,
      samples: [
        {
          tNs: 500.5 * MS,
          threadId: 2,
          frames: ['com.example.Sync.syncAll'],
          ...(periodNs === undefined ? {} : { periodNs }),
        },
      ],
    })
    const found = findInitiators([modem], sampled(1 * MS), window, { isAppMethod: isApp })
    expect(found.orphans).toEqual([])
    expect(found.invocations).toEqual([
      expect.objectContaining({ method: 'com.example.Sync.syncAll', component: 'cellular' }),
    ])
    // Without the period the sample is only known to be after the reading: nobody started it.
    const blind = findInitiators([modem], sampled(), window, { isAppMethod: isApp })
    expect(blind.invocations).toEqual([])
    expect(blind.orphans).toHaveLength(1)
  })

  test('no app code within the lookback: an orphan, charged to nobody', () => {
    const modem = rail('VSYS_PWR_MODEM', 'Modem', (t) => (t >= 1500 && t < 1700 ? 1 : 0.05))
    const execution = samples([[100, ['com.example.Old.work']]])
    const { invocations, orphans } = findInitiators([modem], execution, window, {
      isAppMethod: isApp,
      lookbackNs: 500 * MS,
    })
    expect(invocations).toEqual([])
    expect(orphans).toHaveLength(1)
    expect(orphans[0]!.component).toBe('cellular')
  })

  test('a GPS on for the whole window is found against the idle level learned earlier', () => {
    const gps = rail('L9S_GNSS_CORE', 'GPS', () => 0.3)
    const blind = findInitiators([gps], undefined, window, { isAppMethod: isApp })
    expect(blind.ongoing, 'without a known floor the window minimum hides it').toEqual([])
    expect(blind.lowestW.get('L9S_GNSS_CORE')).toBeCloseTo(0.3, 12)
    const known = findInitiators([gps], undefined, window, {
      isAppMethod: isApp,
      floorsW: new Map([['L9S_GNSS_CORE', 0]]),
    })
    expect(known.ongoing).toEqual([
      {
        component: 'gps',
        rail: 'L9S_GNSS_CORE',
        energyJ: expect.closeTo(0.6, 12),
        endNs: 2000 * MS,
        stillActiveAtEnd: true,
        endLevelW: expect.closeTo(0.3, 12),
      },
    ])
  })

  test('rails of synchronous components (CPU, display) are never bursts', () => {
    const display = rail('VSYS_PWR_DISPLAY', 'Display', (t) => (t > 1000 ? 1.2 : 0.2))
    expect(
      findInitiators([display], undefined, window, { isAppMethod: isApp }).invocations,
    ).toEqual([])
  })
})
