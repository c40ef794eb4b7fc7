/**
 * Component breakdown from ODPM rails: each rail's subsystem (or, failing that, its name) is
 * mapped to a model `Component` by keyword. Subsystem names seen on real devices (Pixel 6/8
 * `dumpsys android.hardware.power.stats`, Perfetto power rails): `CPU(BIG)`, `CPU_LITTLE`,
 * `Display`, `GPU3D`, `CELLULAR`, `WLANBT`, `GPS`, `Memory`, `UFS(Disk)`, `Camera`, `TPU`,
 * `INFRASTRUCTURE`, `Sensor`.
 */
import type { Component, ComponentEnergy, RailEnergy } from '../model/energy.js'

const RULES: ReadonlyArray<readonly [RegExp, Component]> = [
  [/CPU/i, 'cpu'],
  [/GPU/i, 'gpu'],
  [/DISP|DISPLAY|SCREEN|PANEL/i, 'screen'],
  [/WLAN|WIFI|WI-FI/i, 'wifi'],
  [/CELL|MODEM|RADIO|\bRF\b/i, 'cellular'],
  [/GPS|GNSS/i, 'gps'],
  [/\bBT\b|BLUETOOTH/i, 'bluetooth'],
  [/MEM|DDR|DRAM/i, 'memory'],
  [/CAM/i, 'camera'],
  [/AUDIO|AUD\b/i, 'audio'],
]

/** The component a rail belongs to (`other` when no keyword matches). */
export function componentOfRail(rail: Pick<RailEnergy, 'rail' | 'subsystem'>): Component {
  for (const name of [rail.subsystem, rail.rail]) {
    if (name === undefined) continue
    for (const [pattern, component] of RULES) if (pattern.test(name)) return component
  }
  return 'other'
}

/** Sums rail energies per component, in first-seen order. */
export function componentsFromRails(rails: readonly RailEnergy[]): ComponentEnergy[] {
  const sums = new Map<Component, number>()
  for (const r of rails) {
    const c = componentOfRail(r)
    sums.set(c, (sums.get(c) ?? 0) + r.energyJ)
  }
  return [...sums].map(([component, energyJ]) => ({ component, energyJ }))
}
