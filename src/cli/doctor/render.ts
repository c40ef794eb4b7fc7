/**
 * The doctor's report as text (one line per check with ✓ ! ✗, its evidence indented under it, a
 * final verdict) or JSON. Pure: the terminal's colours come in as a `Screen`.
 */
import type { Evidence } from '../../device/index.js'
import type { Screen } from '../../../reporter/screen.js'
import { describeAdbAddressSource } from './adb-address.js'
import { allChecks, type CheckStatus, type DoctorCheck, type DoctorReport } from './report.js'

const MARK: Readonly<Record<CheckStatus, string>> = { pass: '✓', warn: '!', fail: '✗', skip: '-' }

function mark(status: CheckStatus, screen: Screen): string {
  const c = screen.colors
  const paint =
    status === 'pass' ? c.green : status === 'warn' ? c.yellow : status === 'fail' ? c.red : c.dim
  return paint(MARK[status])
}

/** `$ command` then its lines; consecutive lines of one command share its `$` line. */
function evidenceLines(evidence: readonly Evidence[]): string[] {
  const lines: string[] = []
  let previous: string | undefined
  for (const e of evidence) {
    const head = `    $ ${e.command}${e.exitCode === undefined ? '' : ` (exit ${e.exitCode})`}`
    if (head !== previous) lines.push(head)
    previous = head
    if (e.line !== undefined) lines.push(`      ${e.line}`)
  }
  return lines
}

function renderCheck(check: DoctorCheck, screen: Screen): string[] {
  const c = screen.colors
  const code = check.code === undefined ? '' : ` ${c.dim(`[${check.code}]`)}`
  return [
    `${mark(check.status, screen)} ${c.bold(check.title)}: ${check.found}${code}`,
    ...(check.note === undefined ? [] : [`    ${c.dim(check.note)}`]),
    ...evidenceLines(check.evidence).map((l) => c.dim(l)),
    ...(check.fix === undefined ? [] : [`    ${c.cyan('fix:')} ${check.fix}`]),
  ]
}

function verdictLine(report: DoctorReport, screen: Screen): string {
  const checks = allChecks(report)
  const count = (s: CheckStatus): number => checks.filter((c) => c.status === s).length
  const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`
  const phones = report.phones.map((p) => p.serial).join(', ')
  if (report.verdict === 'fail') {
    return `${mark('fail', screen)} ${screen.colors.bold('not ready')}: ${plural(count('fail'), 'problem')} would make a run fail${count('warn') > 0 ? ` (and ${plural(count('warn'), 'warning')})` : ''}.`
  }
  const sources = report.phones
    .map((p) => `${p.serial} with ${sourceName(p.powerSource)}`)
    .join(', ')
  if (report.verdict === 'warn' && report.phones.length === 0) {
    return `${mark('warn', screen)} ${screen.colors.bold('ready for the virtual device only')}: no phone to measure; a run measures a simulated phone (${plural(count('warn'), 'warning')} above).`
  }
  if (report.verdict === 'warn') {
    return `${mark('warn', screen)} ${screen.colors.bold('ready, with warnings')}: a run measures on ${sources}; ${plural(count('warn'), 'warning')} above (less detail or accuracy).`
  }
  return `${mark('pass', screen)} ${screen.colors.bold('ready')}: a run measures on ${phones === '' ? 'no phone' : sources}.`
}

function sourceName(source: DoctorReport['phones'][number]['powerSource']): string {
  switch (source) {
    case 'odpm':
      return 'ODPM rails (perfetto)'
    case 'powerstats':
      return 'ODPM rails (dumpsys)'
    case 'fuel-gauge':
      return 'the fuel gauge'
    default:
      return 'no power source'
  }
}

/** The text report. */
export function renderDoctorText(report: DoctorReport, screen: Screen): string {
  const lines = [
    `vitest-energy doctor: adb server ${report.adb.host}:${report.adb.port} (${describeAdbAddressSource({ ...report.adb })})${report.app === undefined ? '' : `, app ${report.app}`}`,
    '',
    ...report.checks.flatMap((c) => renderCheck(c, screen)),
  ]
  for (const phone of report.phones) {
    const version =
      phone.sdk === undefined ? '' : `, Android ${phone.release ?? '?'} (API ${phone.sdk})`
    lines.push(
      '',
      screen.colors.bold(`${phone.serial}: ${phone.model ?? 'unknown model'}${version}`),
    )
    lines.push(...phone.checks.flatMap((c) => renderCheck(c, screen)))
  }
  lines.push('', verdictLine(report, screen), '')
  return lines.join('\n')
}

/** A check with its keys in the documented order, whatever order it was built in. */
function ordered<C extends DoctorCheck>(c: C): C {
  return {
    id: c.id,
    title: c.title,
    status: c.status,
    found: c.found,
    ...(c.note === undefined ? {} : { note: c.note }),
    evidence: c.evidence,
    ...(c.fix === undefined ? {} : { fix: c.fix }),
    ...(c.code === undefined ? {} : { code: c.code }),
  } as C
}

/** The `--json` report: the value itself (keys in the documented order), two-space indented. */
export function renderDoctorJson(report: DoctorReport): string {
  const stable: DoctorReport = {
    schemaVersion: report.schemaVersion,
    verdict: report.verdict,
    adb: {
      host: report.adb.host,
      port: report.adb.port,
      from: report.adb.from,
      envVars: report.adb.envVars,
    },
    ...(report.app === undefined ? {} : { app: report.app }),
    checks: report.checks.map(ordered),
    phones: report.phones.map((p) => ({
      serial: p.serial,
      ...(p.model === undefined ? {} : { model: p.model }),
      ...(p.sdk === undefined ? {} : { sdk: p.sdk }),
      ...(p.release === undefined ? {} : { release: p.release }),
      ...(p.powerSource === undefined ? {} : { powerSource: p.powerSource }),
      checks: p.checks.map(ordered),
    })),
  }
  return `${JSON.stringify(stable, null, 2)}\n`
}
