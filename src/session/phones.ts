/**
 * Which phones a run uses, decided in the main process: the plugin's config hook needs the count
 * (one Vitest worker per phone by default) and the run's setup (`run-setup.ts`) needs the serials.
 * Both ask here, so they cannot disagree about when the virtual device is used.
 */
import { connectAdb, isListening, listDevices } from '../device/index.js'
import { EnergyError } from '../model/index.js'
import type { ResolvedEnergyOptions } from './options.js'

/** Real phones on an adb server, or the bundled virtual device with this many phones. */
export type PhoneChoice =
  | {
      readonly kind: 'real'
      readonly host: string
      readonly port: number
      readonly serials: readonly string[]
    }
  | { readonly kind: 'virtual'; readonly devices: number; readonly why: string }

/** What the decision needs besides the resolved options. */
export interface PhoneChoiceContext {
  /** The user gave `adb.host` or `adb.port`: that server must answer, no fallback. */
  readonly adbConfigured: boolean
}

/**
 * `device: 'virtual'` → the virtual device. A serial → that phone, which must be attached.
 * `auto` → the phones attached to the adb server, else the virtual device — unless the user
 * configured an adb address, which then must answer (a typo must not silently measure a
 * simulation).
 */
export async function choosePhones(
  options: ResolvedEnergyOptions,
  context: PhoneChoiceContext,
): Promise<PhoneChoice> {
  const virtual = (why: string): PhoneChoice => ({
    kind: 'virtual',
    devices: options.virtualDevice.devices,
    why,
  })
  if (options.device === 'virtual') return virtual('as configured')
  const { host, port } = options.adb
  if (!(await isListening(host, port, 500))) {
    if (options.device === 'auto' && !context.adbConfigured) return virtual('no phone attached')
    throw new EnergyError({
      code: 'E_ADB_UNREACHABLE',
      message:
        options.device === 'auto'
          ? `no adb server answers on ${host}:${port}, the address given in the plugin's adb option`
          : `device ${options.device} was configured, but no adb server answers on ${host}:${port}`,
      hint:
        options.device !== 'auto' && !context.adbConfigured
          ? `Start adb with the phone attached (\`adb start-server\`, then \`adb devices\`), or set device: 'auto' to use the virtual device when no phone is attached.`
          : `Start one there (\`adb -P ${port} start-server\`), correct adb.host/adb.port, or remove ` +
            'the adb option to fall back to the virtual device when no phone is attached.',
      details: { host, port },
    })
  }
  const ready = (await listDevices(await connectAdb({ host, port }))).filter(
    (d) => d.state === 'device',
  )
  if (options.device === 'auto') {
    if (ready.length > 0) return { kind: 'real', host, port, serials: ready.map((d) => d.serial) }
    if (context.adbConfigured) {
      throw new EnergyError({
        code: 'E_NO_DEVICE',
        message: `the adb server on ${host}:${port} has no phone attached and ready`,
        hint: 'Check `adb devices` (accept the USB debugging prompt on the phone), or remove the adb option to use the virtual device.',
        details: { host, port },
      })
    }
    return virtual('no phone attached')
  }
  if (!ready.some((d) => d.serial === options.device)) {
    throw new EnergyError({
      code: 'E_NO_DEVICE',
      message: `device ${options.device} is not attached and ready (attached: ${ready.map((d) => d.serial).join(', ') || 'none'})`,
      hint: 'Check `adb devices`; accept the USB debugging prompt on the phone if it shows "unauthorized".',
      details: { host, port },
    })
  }
  return { kind: 'real', host, port, serials: [options.device] }
}

/** How many phones the run will measure on. */
export function phoneCount(choice: PhoneChoice): number {
  return choice.kind === 'real' ? choice.serials.length : choice.devices
}
