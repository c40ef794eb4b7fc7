/** The doctor's text renderer is pure: colours only from the injected Screen (NO_COLOR, TTY). */
import { describe, expect, test } from 'vitest'
import { renderDoctorText } from '../../src/cli/doctor/render.js'
import type { DoctorReport } from '../../src/cli/doctor/report.js'
import { plainScreen, terminalScreen } from '../../reporter/screen.js'

const report: DoctorReport = {
  schemaVersion: 1,
  verdict: 'warn',
  adb: { host: '127.0.0.1', port: 5037, from: 'default', envVars: [] },
  checks: [
    {
      id: 'adb-server',
      title: 'adb server',
      status: 'pass',
      found: '127.0.0.1:5037 answers',
      evidence: [{ command: 'host:version', line: 'server version 41' }],
    },
  ],
  phones: [
    {
      serial: 'R5CT',
      model: 'Phone',
      sdk: 34,
      release: '14',
      powerSource: 'fuel-gauge',
      checks: [
        {
          id: 'charging',
          title: 'charging',
          status: 'warn',
          found: 'USB powered',
          note: 'a note',
          evidence: [
            { command: 'dumpsys battery', line: 'AC powered: false' },
            { command: 'dumpsys battery', line: 'USB powered: true' },
            { command: 'cat /x', exitCode: 1 },
          ],
          fix: 'unplug',
          code: 'W_CHARGING',
        },
      ],
    },
  ],
}

const tty = { isTTY: true, columns: 80 } as unknown as NodeJS.WriteStream

describe('renderDoctorText', () => {
  test('plain: marks, evidence grouped under one $ line per command, note, fix, verdict', () => {
    expect(renderDoctorText(report, plainScreen)).toBe(
      [
        "vitest-energy doctor: adb server 127.0.0.1:5037 (adb's default)",
        '',
        '✓ adb server: 127.0.0.1:5037 answers',
        '    $ host:version',
        '      server version 41',
        '',
        'R5CT: Phone, Android 14 (API 34)',
        '! charging: USB powered [W_CHARGING]',
        '    a note',
        '    $ dumpsys battery',
        '      AC powered: false',
        '      USB powered: true',
        '    $ cat /x (exit 1)',
        '    fix: unplug',
        '',
        '! ready, with warnings: a run measures on R5CT with the fuel gauge; 1 warning above (less detail or accuracy).',
        '',
      ].join('\n'),
    )
  })

  test('colours on a TTY, none with NO_COLOR', () => {
    expect(renderDoctorText(report, terminalScreen(tty, {}))).toContain('\x1b[')
    expect(renderDoctorText(report, terminalScreen(tty, { NO_COLOR: '1' }))).not.toContain('\x1b[')
    const notTty = { isTTY: false } as unknown as NodeJS.WriteStream
    expect(renderDoctorText(report, terminalScreen(notTty, {}))).not.toContain('\x1b[')
  })
})
