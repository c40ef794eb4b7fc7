/**
 * The checks of `vitest-energy doctor`: what a run would find on the host (adb server, attached
 * phones, Appium and its UiAutomator2 driver) and, through `phone.ts`, on each phone, with the
 * command and output line behind each finding and what to do. Everything on a phone goes through
 * the device layer (connectAdb, discovery, the capability probe, the clock mapping), as in a run.
 */
import {
  connectAdb,
  mapAdbError,
  parseDeviceRow,
  pickDevice,
  type AdbClient,
  type DeviceInfo,
  type Evidence,
} from '../../device/index.js'
import { isEnergyError, type EnergyError } from '../../model/index.js'
import { sentence } from './_util.js'
import { describeAdbAddressSource, type AdbAddress } from './adb-address.js'
import type { AdbClientFinder, PackageFinder } from './packages.js'
import { checkPhone } from './phone.js'
import {
  allChecks,
  verdictOf,
  type DoctorCheck,
  type DoctorPhone,
  type DoctorReport,
  type HostCheckId,
} from './report.js'

export interface DoctorOptions {
  readonly address: AdbAddress
  /** Check only this phone (`--serial`); otherwise every authorized phone, as `device: 'auto'`. */
  readonly serial?: string
  /** The app under test (`--app`). */
  readonly app?: string
  /** The directory the user's project is in (where Appium is looked up first). */
  readonly cwd: string
  readonly findPackage: PackageFinder
  /** Finds the `adb` client the UiAutomator2 driver runs. */
  readonly findAdbClient: AdbClientFinder
}

type HostCheck = DoctorCheck<HostCheckId>

export async function runDoctor(options: DoctorOptions): Promise<DoctorReport> {
  const { address } = options
  const checks: HostCheck[] = []
  const phones: DoctorPhone[] = []
  const server = await checkAdbServer(address)
  checks.push(server.check)
  if (server.client !== undefined) {
    const devices = await checkDevices(server.client, options.serial)
    checks.push(devices.check)
    for (const serial of devices.serials) {
      phones.push(await checkPhone(server.client.device(serial), options.app))
    }
  } else {
    checks.push({
      id: 'devices',
      title: 'phones',
      status: 'skip',
      found: 'not checked: no adb server to ask',
      evidence: [],
    })
  }
  checks.push(...checkAppium(options))
  return {
    schemaVersion: 1,
    verdict: verdictOf(allChecks({ checks, phones })),
    adb: { host: address.host, port: address.port, from: address.from, envVars: address.envVars },
    ...(options.app === undefined ? {} : { app: options.app }),
    checks,
    phones,
  }
}

async function checkAdbServer(
  address: AdbAddress,
): Promise<{ check: HostCheck; client?: AdbClient }> {
  const where = `${address.host}:${address.port}`
  const source = describeAdbAddressSource(address)
  const command = `host:version (adb -H ${address.host} -P ${address.port} version)`
  const pluginOption = `energy({ adb: { host: '${address.host}', port: ${address.port} } })`
  try {
    const client = await connectAdb({ host: address.host, port: address.port })
    const version = await client.version()
    const base = {
      id: 'adb-server' as const,
      title: 'adb server',
      found: `${where} (from ${source}) answers, adb protocol ${version}`,
      evidence: [{ command, line: `server version ${version}` }],
    }
    if (address.envVars.length > 0) {
      return {
        client,
        check: {
          ...base,
          status: 'warn',
          note: `adb found this server through ${address.envVars.join(' and ')}, which the plugin does not read: a run looks at 127.0.0.1:5037 unless its adb option says otherwise.`,
          fix: `Give the plugin the same address: ${pluginOption} in vitest.config.`,
        },
      }
    }
    return {
      client,
      check:
        address.from === 'options'
          ? {
              ...base,
              status: 'pass',
              note: `A run uses this server when the plugin is given it: ${pluginOption}.`,
            }
          : { ...base, status: 'pass' },
    }
  } catch (error) {
    if (!isEnergyError(error)) throw error
    const evidence = [
      { command: `connect ${where}`, line: 'refused or timed out (nothing listens)' },
    ]
    if (address.from === 'default') {
      // Nobody asked for this server: a run with the plugin's defaults works, on the virtual device.
      return {
        check: {
          id: 'adb-server',
          title: 'adb server',
          status: 'warn',
          found: `no adb server at ${where} (adb's default address)`,
          note: "A run with the plugin's defaults (device: 'auto', no adb option) uses the virtual device: enough to try vitest-energy, but it measures a simulated phone, not yours.",
          evidence,
          fix: 'To measure a phone: install adb (Android platform-tools), connect the phone with USB debugging on, run `adb start-server`, then `vitest-energy doctor` again.',
          code: error.code,
        },
      }
    }
    return {
      check: {
        id: 'adb-server',
        title: 'adb server',
        status: 'fail',
        found: `${sentence(error)} (address from ${source})`,
        note: "A run given this address fails; with device: 'auto' and no adb option, a run would measure the virtual device instead of a phone.",
        evidence,
        fix: error.hint,
        code: error.code,
      },
    }
  }
}

/** One `host:devices-l` row as adbkit splits it. */
type DeviceRow = Awaited<ReturnType<AdbClient['raw']['listDevicesWithPaths']>>[number]

/** A `host:devices-l` row as the server sent it (adb's own token order). */
function deviceLine(row: DeviceRow): string {
  const tokens = [row.path, row.product, row.model, row.device, row.transportId]
  return [row.id, row.type, ...tokens.filter((t): t is string => t !== undefined && t !== '')].join(
    ' ',
  )
}

async function checkDevices(
  client: AdbClient,
  serial: string | undefined,
): Promise<{ check: HostCheck; serials: readonly string[] }> {
  let rows
  try {
    rows = await client.raw.listDevicesWithPaths()
  } catch (error) {
    throw mapAdbError(error, { host: client.host, port: client.port })
  }
  const infos: DeviceInfo[] = rows.map(parseDeviceRow)
  const evidence: Evidence[] =
    rows.length === 0
      ? [{ command: 'adb devices -l', line: '(no devices)' }]
      : rows.map((row) => ({ command: 'adb devices -l', line: deviceLine(row) }))
  const base = { id: 'devices' as const, title: 'phones', evidence }
  /** The error a run gets for this serial (or for `auto`), from the device layer itself. */
  const refusal = async (wanted: string): Promise<EnergyError | undefined> => {
    try {
      await pickDevice(client, { serial: wanted })
      return undefined
    } catch (error) {
      if (isEnergyError(error)) return error
      throw error
    }
  }
  const failed = (error: EnergyError): { check: HostCheck; serials: readonly string[] } => ({
    check: { ...base, status: 'fail', found: sentence(error), fix: error.hint, code: error.code },
    serials: [],
  })
  if (serial !== undefined) {
    const error = await refusal(serial)
    if (error !== undefined) return failed(error)
    return {
      check: { ...base, status: 'pass', found: `${serial} is attached and authorized` },
      serials: [serial],
    }
  }
  const ready = infos.filter((d) => d.state === 'device').map((d) => d.serial)
  const unready = infos.filter((d) => d.state !== 'device')
  if (ready.length === 0) {
    const error = await refusal(unready[0]?.serial ?? 'auto')
    if (error !== undefined) return failed(error)
    return { check: { ...base, status: 'fail', found: 'no phone is ready' }, serials: [] }
  }
  const found = `${ready.length} phone${ready.length === 1 ? '' : 's'} ready (${ready.join(', ')}); a run measures on ${ready.length === 1 ? 'it' : 'each, one Vitest worker per phone'}`
  if (unready.length === 0) return { check: { ...base, status: 'pass', found }, serials: ready }
  const first = await refusal(unready[0]?.serial ?? '')
  return {
    check: {
      ...base,
      status: 'warn',
      found: `${found}; ${unready.map((d) => `${d.serial} is ${d.state}`).join(', ')}, so a run leaves ${unready.length === 1 ? 'it' : 'them'} out`,
      ...(first === undefined ? {} : { fix: first.hint, code: first.code }),
    },
    serials: ready,
  }
}

function checkAppium(options: DoctorOptions): HostCheck[] {
  const where = (from: string): string =>
    from === 'project'
      ? 'your project'
      : from === 'vitest-energy'
        ? "vitest-energy's dependencies"
        : 'the Appium home'
  const one = (id: 'appium' | 'uiautomator2-driver', title: string, name: string): HostCheck => {
    const found = options.findPackage(name)
    const command = `resolve ${name} from ${options.cwd}`
    if (found === undefined) {
      return {
        id,
        title,
        status: 'warn',
        found: `${name} is not installed (looked in your project, vitest-energy's dependencies and the Appium home)`,
        evidence: [{ command, line: 'not found' }],
        note: 'UI tests cannot open an Appium session on a real phone without it.',
        fix: `npm install -D ${name}`,
      }
    }
    return {
      id,
      title,
      status: 'pass',
      found: `${name} ${found.version}, from ${where(found.from)}`,
      evidence: [{ command, line: found.dir }],
    }
  }
  const driver = one('uiautomator2-driver', 'UiAutomator2 driver', 'appium-uiautomator2-driver')
  return [one('appium', 'Appium', 'appium'), withAdbClient(driver, options.findAdbClient())]
}

/** The driver runs the `adb` client (appium-adb): without one it cannot start a session. */
function withAdbClient(driver: HostCheck, adb: ReturnType<AdbClientFinder>): HostCheck {
  if (adb !== undefined && 'path' in adb) {
    return {
      ...driver,
      found: `${driver.found}; it runs the adb client ${adb.path}`,
      evidence: [...driver.evidence, { command: `adb client (${adb.from})`, line: adb.path }],
    }
  }
  const where = adb === undefined ? 'not on the PATH, no ANDROID_HOME' : `${adb.missing} is missing`
  return {
    ...driver,
    status: driver.status === 'pass' ? 'warn' : driver.status,
    found: `${driver.found}; no adb client for it (${where})`,
    evidence: [...driver.evidence, { command: 'adb client', line: where }],
    note: 'The driver runs the adb client: without one, sessions on a real phone fail and the virtual device falls back to the VirtualDevice driver.',
    fix: `${driver.fix === undefined ? '' : `${driver.fix}; then `}install adb (\`apt-get install adb\`, or the Android SDK's platform-tools with ANDROID_HOME set).`,
  }
}
