/**
 * `vitest-energy doctor`: checks a phone the way a run would — adb server, phone, Android version,
 * power source and why, charging, app, profileable, simpleperf, perfetto, clock mapping, Appium and
 * the UiAutomator2 driver — and prints each finding with its evidence and the fix. Exit status 1
 * when a run would fail, 0 otherwise (warnings included).
 */
import { plainScreen } from '../../../reporter/screen.js'
import { parseCommandArgs, usageError } from '../_args.js'
import type { CliCommand } from '../_command.js'
import { resolveAdbAddress } from '../doctor/adb-address.js'
import { runDoctor } from '../doctor/checks.js'
import { adbClientFinder, packageFinder } from '../doctor/packages.js'
import { renderDoctorJson, renderDoctorText } from '../doctor/render.js'

const USAGE = `Usage: vitest-energy doctor [options]

Checks a phone the way a run would: adb server, phone, Android version, power source (and why),
charging, app, profileable, simpleperf, perfetto, clock mapping, Appium and its UiAutomator2 driver.
Each finding comes with the command and output line behind it, and the fix.
Exit status 1 when a run would fail, 0 otherwise (warnings included).

Options:
  --serial <S>     check this phone only (default: every authorized phone, as device: 'auto')
  --app <package>  also check the app under test: installed, debuggable/profileable
  -H <host>        adb server host (as adb -H; the plugin's adb.host)
  -P <port>        adb server port (as adb -P; the plugin's adb.port)
  --adb <host:port>  a lab's adb server; repeat it to check every server of the plugin's adb
                   list, one report each (with --json: { schemaVersion, servers: [reports] })
  --json           print the report as JSON (schemaVersion 1, see docs/real-devices.md)

Without -H/-P the adb server is found as adb finds it: ADB_SERVER_SOCKET, then
ANDROID_ADB_SERVER_ADDRESS / ANDROID_ADB_SERVER_PORT, then 127.0.0.1:5037.
`

/** An Android package name: dot-separated Java identifiers. */
const PACKAGE = /^[A-Za-z][A-Za-z0-9_]*(\.[A-Za-z][A-Za-z0-9_]*)+$/

export const doctorCommand: CliCommand = {
  name: 'doctor',
  summary: 'check a phone the way a run would, with evidence and fixes',
  usage: USAGE,
  async run(args, io) {
    const { values } = parseCommandArgs(args, {
      options: {
        serial: { type: 'string' },
        app: { type: 'string' },
        host: { type: 'string', short: 'H' },
        port: { type: 'string', short: 'P' },
        adb: { type: 'string', multiple: true },
        json: { type: 'boolean', default: false },
      },
      allowPositionals: false,
    })
    if (values.serial !== undefined && !/^[\x21-\x7e]{1,64}$/.test(values.serial)) {
      throw usageError(`--serial takes a serial as adb devices lists it, got '${values.serial}'`)
    }
    if (values.app !== undefined && !PACKAGE.test(values.app)) {
      throw usageError(`--app takes a package name like com.example.app, got '${values.app}'`)
    }
    if (values.host !== undefined && values.host.trim() === '') {
      throw usageError('-H takes a host name or address')
    }
    const env = io.env ?? {}
    const servers = values.adb ?? []
    if (servers.length > 0 && (values.host !== undefined || values.port !== undefined)) {
      throw usageError('give the adb servers either with --adb host:port or with -H/-P, not both')
    }
    const addresses =
      servers.length === 0
        ? [
            resolveAdbAddress(
              {
                ...(values.host === undefined ? {} : { host: values.host }),
                ...(values.port === undefined ? {} : { port: values.port }),
              },
              env,
            ),
          ]
        : servers.map((server) => {
            const match = /^(.+):(\d{1,5})$/.exec(server)
            if (match === null) throw usageError(`--adb takes host:port, got '${server}'`)
            const host = (match[1] ?? '').replace(/^\[(.*)\]$/, '$1')
            return resolveAdbAddress({ host, port: match[2] ?? '' }, {})
          })
    const reports = []
    for (const address of addresses) {
      reports.push(
        await runDoctor({
          address,
          ...(values.serial === undefined ? {} : { serial: values.serial }),
          ...(values.app === undefined ? {} : { app: values.app }),
          cwd: io.cwd,
          findPackage: packageFinder(io.cwd, env),
          findAdbClient: adbClientFinder(env),
        }),
      )
    }
    if (values.json) {
      const [only] = reports
      io.out(
        reports.length === 1 && only !== undefined
          ? renderDoctorJson(only)
          : `{"schemaVersion":1,"servers":[${reports.map((r) => renderDoctorJson(r).trim()).join(',')}]}\n`,
      )
    } else {
      io.out(reports.map((r) => renderDoctorText(r, io.screen ?? plainScreen)).join('\n'))
    }
    return reports.some((r) => r.verdict === 'fail') ? 1 : 0
  },
}
