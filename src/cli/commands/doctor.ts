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
    const address = resolveAdbAddress(
      {
        ...(values.host === undefined ? {} : { host: values.host }),
        ...(values.port === undefined ? {} : { port: values.port }),
      },
      env,
    )
    const report = await runDoctor({
      address,
      ...(values.serial === undefined ? {} : { serial: values.serial }),
      ...(values.app === undefined ? {} : { app: values.app }),
      cwd: io.cwd,
      findPackage: packageFinder(io.cwd, env),
      findAdbClient: adbClientFinder(env),
    })
    io.out(
      values.json ? renderDoctorJson(report) : renderDoctorText(report, io.screen ?? plainScreen),
    )
    return report.verdict === 'fail' ? 1 : 0
  },
}
