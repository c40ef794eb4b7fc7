/**
 * `npx tsx bench/power-formats.ts [--quick]`: throughput of the power-format parsers on the real
 * corpus files (median CPU time of several runs; the machine is shared, so figures are indicative).
 *
 * 1. batterystats history: the 22 496-record Android 4.4 dump and the 11 048-record Android 15 dump,
 *    parse + timeline, records/s and MB/s; writer MB/s.
 * 2. BattOr text (30 624 samples, 1 MB): parse to PowerSeries, samples/s, and the time ratio
 *    against `awk` computing the mean power of the same file (reference; wall time, since awk runs
 *    in a child process).
 * 3. power_profile.xml: all 24 corpus profiles, profiles/s.
 * 4. batterystats checkin: 200 000 generated pwi rows, rows/s parse and write.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

import {
  formatBatterystatsCheckin,
  formatBatterystatsHistory,
  historyTimeline,
  parseBatterystatsCheckin,
  parseBatterystatsHistory,
  type CheckinRow,
} from '../src/formats/batterystats/index.js'
import { meanPowerW, parseMeterText } from '../src/formats/meter/index.js'
import { parsePowerProfile } from '../src/formats/power-profile/index.js'

const quick = process.argv.includes('--quick')
const runs = quick ? 3 : 7
const corpus = fileURLToPath(new URL('../test/fixtures/corpus/', import.meta.url))

/**
 * Median CPU seconds (user + system) of `fn`. CPU time rather than wall time because the machine
 * is shared: wall time mostly measures how long we waited for a core. The code is synchronous and
 * single-threaded, so CPU time is its cost.
 */
function medianWallSeconds(fn: () => void): number {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint()
    fn()
    times.push(Number(process.hrtime.bigint() - t0) / 1e9)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)] ?? Number.NaN
}

function medianSeconds(fn: () => void): number {
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = process.cpuUsage()
    fn()
    const d = process.cpuUsage(t0)
    times.push((d.user + d.system) / 1e6)
  }
  times.sort((a, b) => a - b)
  return times[Math.floor(times.length / 2)] ?? Number.NaN
}

const fmt = (n: number, digits = 1): string =>
  n >= 1e6
    ? `${(n / 1e6).toFixed(digits)} M`
    : n >= 1e3
      ? `${(n / 1e3).toFixed(digits)} k`
      : n.toFixed(digits)

console.log(`power-formats benchmark (${runs} runs, median)`)

for (const file of [
  'asksven_androidcommon_dumpsys_batterystats_2014.txt',
  'redmik80pro_android15_batterystats3.txt',
]) {
  const text = readFileSync(join(corpus, '2_batterystats', file), 'utf8')
  const mb = Buffer.byteLength(text) / 1e6
  let records = 0
  const parseS = medianSeconds(() => {
    records = parseBatterystatsHistory(text).items.length
  })
  const history = parseBatterystatsHistory(text)
  const timelineS = medianSeconds(() => historyTimeline(history))
  let written = 0
  const writeS = medianSeconds(() => {
    written = formatBatterystatsHistory(history, { lineEnding: '\r\n' }).length
  })
  console.log(
    `history ${file}: ${records} records, whole file ${mb.toFixed(2)} MB (history section ${(written / 1e6).toFixed(2)} MB)`,
  )
  console.log(
    `  parse ${(parseS * 1e3).toFixed(1)} ms = ${fmt(records / parseS)} records/s; timeline ${(timelineS * 1e3).toFixed(1)} ms; write ${(writeS * 1e3).toFixed(1)} ms = ${(written / 1e6 / writeS).toFixed(1)} MB/s`,
  )
}

{
  const path = join(corpus, '5_power_monitor', 'catapult_battor.txt')
  const text = readFileSync(path, 'utf8')
  let n = 0
  let mean = 0
  const s = medianSeconds(() => {
    const c = parseMeterText(text)
    n = c.series.samples.length
    mean = meanPowerW(c.series)
  })
  const parseOnce = (): void => {
    meanPowerW(parseMeterText(text).series)
  }
  // the reference runs in a child process, whose CPU time we cannot see: compare wall times
  const oursWallS = medianWallSeconds(parseOnce)
  const awkS = medianWallSeconds(() => {
    const r = spawnSync(
      'awk',
      ['!/^#/ && NF==3 {n++; p+=$2*$3/1e6} END {printf "%.9f", p/n}', path],
      { encoding: 'utf8' },
    )
    if (r.status !== 0) throw new Error(`awk failed: ${r.stderr}`)
  })
  console.log(
    `BattOr catapult_battor.txt: ${n} samples, mean ${mean.toFixed(9)} W, parse ${(s * 1e3).toFixed(1)} ms = ${fmt(n / s)} samples/s; wall: ours ${(oursWallS * 1e3).toFixed(1)} ms vs awk mean power (reference, incl. process start) ${(awkS * 1e3).toFixed(1)} ms, ratio ours/awk ${(oursWallS / awkS).toFixed(2)}`,
  )
}

{
  const dir = join(corpus, '1_power_profile')
  const texts = readdirSync(dir)
    .filter((f) => f.endsWith('.xml'))
    .map((f) => readFileSync(join(dir, f), 'utf8'))
  const s = medianSeconds(() => {
    for (const t of texts) parsePowerProfile(t)
  })
  console.log(
    `power_profile.xml: ${texts.length} profiles in ${(s * 1e3).toFixed(1)} ms = ${fmt(texts.length / s)} profiles/s`,
  )
}

{
  const n = quick ? 20_000 : 200_000
  const rows: CheckinRow[] = Array.from({ length: n }, (_, i) => ({
    type: 'pwi',
    line: i + 1,
    checkinVersion: 9,
    uid: 10_000 + (i % 500),
    category: 'l',
    label: 'uid',
    totalMah: (i % 1000) / 7,
    isSystem: i % 3 === 0,
    screenMah: 0,
    proportionalSmearMah: (i % 10) / 3,
  }))
  let text = ''
  const writeS = medianSeconds(() => {
    text = formatBatterystatsCheckin(rows)
  })
  let parsed = 0
  const parseS = medianSeconds(() => {
    parsed = 0
    for (const _row of parseBatterystatsCheckin(text.split('\n'))) parsed++
  })
  console.log(
    `checkin: ${parsed} pwi rows (${(text.length / 1e6).toFixed(1)} MB), parse ${fmt(parsed / parseS)} rows/s, write ${fmt(n / writeS)} rows/s`,
  )
}
