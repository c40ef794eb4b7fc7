/**
 * `vitest-energy virtual-device`: starts simulated Android phones behind an ADB server on
 * loopback, prints the port and serials, and runs until interrupted (Ctrl-C).
 */
import { resolve } from 'node:path'
import {
  ANDROID_API_LEVELS,
  isLoopback,
  CHARGERS,
  GAUGE_PROFILES,
  PHYSICS,
  SILICON,
  parseGaugeAveraging,
  startVirtualDevice,
  type AndroidApiLevel,
  type Charger,
  type FuelGaugeOptions,
  type GaugeProfile,
  type Physics,
  type Silicon,
} from '../../virtual-device/index.js'
import { parseCommandArgs, usageError } from '../_args.js'
import type { CliCommand } from '../_command.js'

const USAGE = `Usage: vitest-energy virtual-device [options]

Starts simulated Android phones behind an ADB server on 127.0.0.1 and runs until interrupted.

Options:
  --host <address>       address to serve on (default 127.0.0.1); another 127.x.y.z address
                         makes a second "lab host" on this machine; a network address serves
                         the phones to that network: anyone who reaches it runs shell commands
                         on them, so a trusted lab network only (docs/scale.md)
  --serial-prefix <p>    serials <p>-0001, <p>-0002, … (default vdev): distinct phones per host
  --app <model.json>     app model (default: the demo app com.example.trails)
  --devices <N>          number of phones (default 1)
  --port <P>             TCP port (default: a free port)
  --seed <S>             seed for everything random (default 1)
  --time real|fast       device clocks follow the host (default) or jump on sleep
  --power-profile <xml>  power_profile.xml (default: the shipped Pixel 6 profile)
  --android <api>        Android release as an API level, 29–35 (default 33, Android 13)
  --charger <kind>       usb (default) | ac | wireless | none (on battery, discharging)
  --no-rails             a phone without ODPM power rails (fuel gauge only), on battery unless
                         --charger says otherwise: a fuel gauge cannot measure while charging
  --gauge <profile>      the fuel gauge: typical (default: 1 s period averages, 150 µA steps,
                         charge_counter in 1% steps every 60 s) | pixel | samsung | oplus |
                         ti-bq27xxx | mediatek-legacy (docs/virtual-device.md, "Fuel gauge")
  --gauge-averaging <a>  what current_now holds: period | instant | iir:<tau ms> (a moving
                         average) | boxcar:<window ms> (default: the profile's)
  --gauge-sign <sign>    kernel (default) | flipped: current_now positive while discharging
  --physics <kind>       phone (default: other processes, GPU, memory) | simple (only the app runs)
  --silicon <kind>       deviated (default with phone physics: CPU currents off the shipped
                         profile, seeded per cluster) | nominal (exactly the profile's)

Talk to it with adb -P <port> -s <serial> shell ..., or adbkit createClient({ port }).
`

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  if (!/^\d+$/.test(value))
    throw usageError(`--${name} takes a non-negative integer, got '${value}'`)
  return Number(value)
}

export const virtualDeviceCommand: CliCommand = {
  name: 'virtual-device',
  summary: 'start simulated Android phones behind an ADB server (port and serials printed)',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      options: {
        app: { type: 'string' },
        host: { type: 'string' },
        'serial-prefix': { type: 'string' },
        devices: { type: 'string' },
        port: { type: 'string' },
        seed: { type: 'string' },
        time: { type: 'string' },
        'power-profile': { type: 'string' },
        android: { type: 'string' },
        charger: { type: 'string' },
        'no-rails': { type: 'boolean', default: false },
        gauge: { type: 'string' },
        'gauge-averaging': { type: 'string' },
        'gauge-sign': { type: 'string' },
        physics: { type: 'string' },
        silicon: { type: 'string' },
      },
      allowPositionals: false,
    })
    const time = values.time
    if (time !== undefined && time !== 'real' && time !== 'fast') {
      throw usageError(`--time takes 'real' or 'fast', got '${time}'`)
    }
    const android = integer('android', values.android)
    if (android !== undefined && !(ANDROID_API_LEVELS as readonly number[]).includes(android)) {
      throw usageError(
        `--android takes an API level from ${ANDROID_API_LEVELS.join(', ')}, got ${android}`,
      )
    }
    const charger = values.charger
    if (charger !== undefined && !(CHARGERS as readonly string[]).includes(charger)) {
      throw usageError(`--charger takes ${CHARGERS.join(', ')}, got '${charger}'`)
    }
    const sign = values['gauge-sign']
    if (sign !== undefined && sign !== 'kernel' && sign !== 'flipped') {
      throw usageError(`--gauge-sign takes 'kernel' or 'flipped', got '${sign}'`)
    }
    const gauge = values.gauge
    if (gauge !== undefined && !(GAUGE_PROFILES as readonly string[]).includes(gauge)) {
      throw usageError(`--gauge takes ${GAUGE_PROFILES.join(', ')}, got '${gauge}'`)
    }
    const averagingText = values['gauge-averaging']
    const averaging = averagingText === undefined ? undefined : parseGaugeAveraging(averagingText)
    if (averagingText !== undefined && averaging === undefined) {
      throw usageError(
        `--gauge-averaging takes period, instant, iir:<tau ms> or boxcar:<window ms>, got '${averagingText}'`,
      )
    }
    const sensors: FuelGaugeOptions = {
      ...(gauge === undefined ? {} : { profile: gauge as GaugeProfile }),
      ...(averaging === undefined ? {} : { averaging }),
      ...(sign === undefined ? {} : { currentSign: sign }),
    }
    const physics = values.physics
    if (physics !== undefined && !(PHYSICS as readonly string[]).includes(physics)) {
      throw usageError(`--physics takes ${PHYSICS.join(', ')}, got '${physics}'`)
    }
    const silicon = values.silicon
    if (silicon !== undefined && !(SILICON as readonly string[]).includes(silicon)) {
      throw usageError(`--silicon takes ${SILICON.join(', ')}, got '${silicon}'`)
    }
    const devices = integer('devices', values.devices)
    const port = integer('port', values.port)
    const prefix = values['serial-prefix']
    if (prefix !== undefined && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$/.test(prefix)) {
      throw usageError(
        `--serial-prefix takes letters, digits, '.', '_' and '-' (at most 32), got '${prefix}'`,
      )
    }
    const host = values.host
    const loopback = host === undefined || isLoopback(host)
    const seed = integer('seed', values.seed)
    // A gauge-only phone on USB power measures nothing: the gauge sees the charger's current.
    const powered = charger ?? (values['no-rails'] ? 'none' : undefined)
    const server = await startVirtualDevice({
      ...(host === undefined ? {} : { host, allowNetwork: true }),
      ...(prefix === undefined ? {} : { serialPrefix: prefix }),
      ...(values.app === undefined ? {} : { app: resolve(io.cwd, values.app) }),
      ...(devices === undefined ? {} : { devices }),
      ...(port === undefined ? {} : { port }),
      ...(seed === undefined ? {} : { seed }),
      ...(time === undefined ? {} : { time }),
      ...(values['power-profile'] === undefined
        ? {}
        : { powerProfile: resolve(io.cwd, values['power-profile']) }),
      ...(android === undefined ? {} : { androidVersion: android as AndroidApiLevel }),
      ...(powered === undefined ? {} : { charger: powered as Charger }),
      ...(values['no-rails'] ? { odpm: false } : {}),
      ...(Object.keys(sensors).length === 0 ? {} : { sensors }),
      ...(physics === undefined ? {} : { physics: physics as Physics }),
      ...(silicon === undefined ? {} : { silicon: silicon as Silicon }),
    })
    io.out(
      [
        `virtual device: ADB server on ${server.host}:${server.port}`,
        ...(loopback
          ? []
          : [
              `warning: ${server.host} is not a loopback address: anyone who reaches it runs shell commands on these phones (a trusted lab network only)`,
            ]),
        `port: ${server.port}`,
        `serials: ${server.serials.join(' ')}`,
        `try: adb${server.host === '127.0.0.1' ? '' : ` -H ${server.host}`} -P ${server.port} -s ${server.serials[0] ?? ''} shell getprop ro.product.model`,
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    )
    if (!io.signal.aborted) {
      await new Promise<void>((done) =>
        io.signal.addEventListener('abort', () => done(), { once: true }),
      )
    }
    await server.close()
    io.out('virtual device stopped\n')
    return 0
  },
}
