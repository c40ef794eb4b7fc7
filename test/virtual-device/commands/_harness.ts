/** A simulated phone on a base device, driven through the real shell interpreter (no ADB). */
import { fastClock, type FastClock } from '../../../src/virtual-device/clock.js'
import type { VirtualDeviceHandle } from '../../../src/virtual-device/contract.js'
import { createDevice } from '../../../src/virtual-device/device.js'
import { runShell } from '../../../src/virtual-device/shell/interpreter.js'
import { installSimPhone } from '../../../src/virtual-device/commands/index.js'
import type { AppModel } from '../../../src/virtual-device/sim/app-model.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'
import { createSimPhone, type SimPhone } from '../../../src/virtual-device/sim/phone.js'
import { defaultPowerProfile } from '../../../src/virtual-device/sim/power-model.js'
import type { Physics } from '../../../src/virtual-device/sim/other-processes.js'
import type { Silicon } from '../../../src/virtual-device/sim/silicon.js'
import type { FuelGaugeOptions } from '../../../src/virtual-device/sim/sensors.js'

export interface Harness {
  readonly device: VirtualDeviceHandle
  readonly phone: SimPhone
  readonly clock: FastClock
  sh(command: string, stdin?: string): Promise<{ out: string; err: string; status: number }>
  shBytes(command: string): Promise<Uint8Array>
}

const profile = defaultPowerProfile()

/** 2023-11-14 22:13:20 UTC: CLOCK_REALTIME when a harness phone is created, ns. */
export const HARNESS_REALTIME_START_NS = 1_700_000_000_000_000_000

export function harness(
  options: {
    app?: AppModel
    seed?: number
    sensors?: FuelGaugeOptions
    traceBufferBytes?: number
    cpuJitter?: number
    /** @default 'simple' (createSimPhone's default) */
    physics?: Physics
    /** @default createSimPhone's: deviated with the phone physics, nominal with the simple one */
    silicon?: Silicon
  } = {},
): Harness {
  // Every device input fixed: the fast clock only moves when a command sleeps, the simulation is
  // seeded, and the wall clock starts at a fixed instant instead of the host's Date.now().
  const clock = fastClock({ realtimeStartNs: HARNESS_REALTIME_START_NS })
  const device = createDevice({ serial: 'vdev-test', clock })
  const phone = createSimPhone({
    app: options.app ?? DEMO_APP_MODEL,
    powerProfile: profile,
    seed: options.seed ?? 11,
    clock,
    ...(options.sensors === undefined ? {} : { sensors: options.sensors }),
    ...(options.traceBufferBytes === undefined
      ? {}
      : { traceBufferBytes: options.traceBufferBytes }),
    ...(options.cpuJitter === undefined ? {} : { cpuJitter: options.cpuJitter }),
    ...(options.physics === undefined ? {} : { physics: options.physics }),
    ...(options.silicon === undefined ? {} : { silicon: options.silicon }),
  })
  installSimPhone(device, phone)
  const decoder = new TextDecoder()
  const run = async (command: string, stdin?: string) => {
    const outChunks: Uint8Array[] = []
    const errChunks: Uint8Array[] = []
    const bytes = (c: string | Uint8Array) =>
      typeof c === 'string' ? new TextEncoder().encode(c) : c
    const status = await runShell(command, {
      device,
      io: { write: (c) => outChunks.push(bytes(c)), writeErr: (c) => errChunks.push(bytes(c)) },
      signal: new AbortController().signal,
      ...(stdin === undefined ? {} : { stdin: new TextEncoder().encode(stdin) }),
    })
    return { outChunks, errChunks, status }
  }
  return {
    device,
    phone,
    clock,
    async sh(command, stdin) {
      const r = await run(command, stdin)
      return {
        out: r.outChunks.map((c) => decoder.decode(c)).join(''),
        err: r.errChunks.map((c) => decoder.decode(c)).join(''),
        status: r.status,
      }
    },
    async shBytes(command) {
      const r = await run(command)
      const total = r.outChunks.reduce((n, c) => n + c.length, 0)
      const all = new Uint8Array(total)
      let o = 0
      for (const c of r.outChunks) {
        all.set(c, o)
        o += c.length
      }
      return all
    },
  }
}

/** Center of a widget on the current screen, for `input tap`. */
export function centerOf(phone: SimPhone, desc: string): string {
  const w = phone.sim.currentScreen()?.widgets.find((x) => x.contentDesc === desc)
  if (w === undefined) throw new Error(`no widget ~${desc} on screen ${phone.sim.currentScreenId}`)
  return `${Math.floor((w.bounds[0] + w.bounds[2]) / 2)} ${Math.floor((w.bounds[1] + w.bounds[3]) / 2)}`
}
