/**
 * Which phones a run uses, decided in the main process: the plugin's config hook needs the count
 * (one Vitest worker per phone by default) and the run's setup (`run-setup.ts`) needs the phones.
 * Both ask here, so they cannot disagree about when the virtual device is used.
 */
import {
  adbServerName,
  connectAdb,
  isListening,
  listDevices,
  phoneKey,
  type AdbServerAddress,
  type PhoneAddress,
} from '../device/index.js'
import { EnergyError } from '../model/index.js'
import type { ResolvedEnergyOptions } from './options.js'

/** Real phones on one or more adb servers, or the bundled virtual device with this many phones. */
export type PhoneChoice =
  | {
      readonly kind: 'real'
      readonly phones: readonly PhoneAddress[]
      /** Listed servers that did not answer: the run goes on with the others' phones. */
      readonly unreachable: readonly AdbServerAddress[]
    }
  | { readonly kind: 'virtual'; readonly devices: number; readonly why: string }

/** What the decision needs besides the resolved options. */
export interface PhoneChoiceContext {
  /** The user gave `adb`: its servers must answer, no fallback. */
  readonly adbConfigured: boolean
}

/**
 * `device: 'virtual'` → the virtual device. A serial (or `host:port/serial`) → that phone, which
 * must be attached. `auto` → the phones attached to the adb server(s), else the virtual device —
 * unless the user configured an adb address, which then must answer (a typo must not silently
 * measure a simulation). Of several servers, those that answer are used and the others named.
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
  const listening = await Promise.all(options.adb.map((s) => isListening(s.host, s.port, 500)))
  const servers = options.adb.filter((_, i) => listening[i])
  const unreachable = options.adb.filter((_, i) => !listening[i])
  if (servers.length === 0) {
    if (options.device === 'auto' && !context.adbConfigured) return virtual('no phone attached')
    const where = options.adb.map(adbServerName).join(', ')
    const [first] = options.adb
    throw new EnergyError({
      code: 'E_ADB_UNREACHABLE',
      message:
        options.device === 'auto'
          ? `no adb server answers on ${where}, the address${options.adb.length === 1 ? '' : 'es'} given in the plugin's adb option`
          : `device ${options.device} was configured, but no adb server answers on ${where}`,
      hint:
        options.device !== 'auto' && !context.adbConfigured
          ? `Start adb with the phone attached (\`adb start-server\`, then \`adb devices\`), or set device: 'auto' to use the virtual device when no phone is attached.`
          : `Start one there (\`adb -P ${first?.port ?? 5037} start-server\`; a lab host: docs/scale.md), correct the adb option, or remove ` +
            'the adb option to fall back to the virtual device when no phone is attached.',
      details: { host: first?.host ?? '', port: first?.port ?? 0 },
    })
  }
  const ready: PhoneAddress[] = []
  for (const server of servers) {
    const devices = await listDevices(await connectAdb(server))
    for (const d of devices)
      if (d.state === 'device')
        ready.push({ host: server.host, port: server.port, serial: d.serial })
  }
  const where = servers.map(adbServerName).join(', ')
  if (options.device === 'auto') {
    if (ready.length > 0) return { kind: 'real', phones: ready, unreachable }
    if (context.adbConfigured) {
      throw new EnergyError({
        code: 'E_NO_DEVICE',
        message: `the adb server${servers.length === 1 ? '' : 's'} on ${where} ha${servers.length === 1 ? 's' : 've'} no phone attached and ready`,
        hint: 'Check `adb devices` (accept the USB debugging prompt on the phone), or remove the adb option to use the virtual device.',
        details: { host: servers[0]?.host ?? '', port: servers[0]?.port ?? 0 },
      })
    }
    return virtual('no phone attached')
  }
  const wanted = ready.filter((p) => p.serial === options.device || phoneKey(p) === options.device)
  if (wanted.length === 1) return { kind: 'real', phones: wanted, unreachable }
  if (wanted.length > 1) {
    throw new EnergyError({
      code: 'E_DEVICE_AMBIGUOUS',
      message: `device ${options.device} is attached to more than one adb server: ${wanted.map(phoneKey).join(', ')}`,
      hint: `Name it with its server, e.g. device: '${phoneKey(wanted[0] as PhoneAddress)}'.`,
    })
  }
  throw new EnergyError({
    code: 'E_NO_DEVICE',
    message: `device ${options.device} is not attached and ready (attached: ${ready.map((p) => (servers.length === 1 ? p.serial : phoneKey(p))).join(', ') || 'none'})`,
    hint: 'Check `adb devices`; accept the USB debugging prompt on the phone if it shows "unauthorized".',
    details: { host: servers[0]?.host ?? '', port: servers[0]?.port ?? 0 },
  })
}

/** How many phones the run will measure on. */
export function phoneCount(choice: PhoneChoice): number {
  return choice.kind === 'real' ? choice.phones.length : choice.devices
}
