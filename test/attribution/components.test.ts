import { describe, expect, test } from 'vitest'
import { componentOfRail, componentsFromRails } from '../../src/attribution/components.js'

describe('rail → component', () => {
  test.each([
    [{ rail: 'S4M_VDD_CPUCL0', subsystem: 'CPU(LITTLE)' }, 'cpu'],
    [{ rail: 'CPU_BIG' }, 'cpu'],
    [{ rail: 'L22M_DISP' }, 'screen'],
    [{ rail: 'x', subsystem: 'Display' }, 'screen'],
    [{ rail: 'GPU3D' }, 'gpu'],
    [{ rail: 'WLANBT' }, 'wifi'],
    [{ rail: 'CELLULAR' }, 'cellular'],
    [{ rail: 'GPS' }, 'gps'],
    [{ rail: 'L21S_VDD2L_MEM' }, 'memory'],
    [{ rail: 'Camera' }, 'camera'],
    [{ rail: 'TPU' }, 'other'],
    [{ rail: 'INFRASTRUCTURE' }, 'other'],
  ] as const)('%o → %s', (rail, component) => {
    expect(componentOfRail(rail)).toBe(component)
  })

  test('sums per component', () => {
    expect(
      componentsFromRails([
        { rail: 'CPU_BIG', energyJ: 1 },
        { rail: 'CPU_LITTLE', energyJ: 0.5 },
        { rail: 'Display', energyJ: 2 },
      ]),
    ).toEqual([
      { component: 'cpu', energyJ: 1.5 },
      { component: 'screen', energyJ: 2 },
    ])
  })
})
