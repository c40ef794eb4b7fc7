/**
 * Every batterystats file we have, read as a user would (sniffed, then the checkin or history
 * parser): the shared corpus (../shared/corpus/2_batterystats, skipped with a notice when absent),
 * the repository's copies of it and the hand-written fixtures. What each gives is pinned (issue 16,
 * item 8), and one-shot and chunked parsing give the same value or the same error code for random
 * splits (item 7).
 */
import { createHash } from 'node:crypto'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

import fc from 'fast-check'
import { describe, expect, test } from 'vitest'

import {
  assembleBatterystatsHistory,
  BatterystatsCheckinDecoder,
  BatterystatsHistoryDecoder,
  BatterystatsWarnings,
  parseBatterystatsHistory,
  sniffBatterystats,
  summarizeBatterystatsCheckin,
  type BatteryHistory,
  type CheckinRow,
  type HistoryLineItem,
} from '../../../src/formats/batterystats/index.js'
import { EnergyError } from '../../../src/model/errors.js'
import { sharedCorpus } from '../_shared-corpus.js'

const shared = sharedCorpus('2_batterystats')
const COPIES = join(import.meta.dirname, '../../fixtures/corpus/2_batterystats')
const DIRS = [
  ...(shared === undefined ? [] : [shared.dir]),
  COPIES,
  join(import.meta.dirname, '../../fixtures/batterystats'),
]

/** Distinct contents (copies in several folders are read once), with every name they go by. */
const files = new Map<string, { names: Set<string>; text: string }>()
for (const dir of DIRS) {
  if (!existsSync(dir)) continue
  for (const name of readdirSync(dir).sort()) {
    if (!/\.(txt|log|csv)$/.test(name)) continue
    const text = readFileSync(join(dir, name), 'utf8')
    const key = createHash('sha256').update(text).digest('hex')
    const entry = files.get(key) ?? { names: new Set<string>(), text }
    entry.names.add(name)
    files.set(key, entry)
  }
}
const cases = [...files.values()].map((f) => ({ name: [...f.names].join(' = '), ...f }))

type Read =
  | { readonly kind: 'checkin'; readonly rows: readonly CheckinRow[] }
  | { readonly kind: 'history'; readonly history: BatteryHistory }
  | { readonly kind: 'refused'; readonly code: string }

const refused = (e: unknown): Read => {
  if (!(e instanceof EnergyError)) throw e
  return { kind: 'refused', code: e.code }
}

function readOneShot(text: string): Read {
  try {
    return sniffBatterystats(text) === 'checkin'
      ? { kind: 'checkin', rows: summarizeBatterystatsCheckin(text).rows }
      : { kind: 'history', history: parseBatterystatsHistory(text) }
  } catch (e) {
    return refused(e)
  }
}

/** The same through the push decoders, the text cut at `cuts` (sorted offsets). */
function readChunked(text: string, cuts: readonly number[]): Read {
  const chunks: string[] = []
  let from = 0
  for (const cut of [...cuts, text.length]) {
    chunks.push(text.slice(from, cut))
    from = cut
  }
  try {
    if (sniffBatterystats(text) === 'checkin') {
      const d = new BatterystatsCheckinDecoder()
      const rows = chunks.flatMap((c) => d.push(c))
      return { kind: 'checkin', rows: [...rows, ...d.end()] }
    }
    const d = new BatterystatsHistoryDecoder()
    const items: HistoryLineItem[] = chunks.flatMap((c) => d.push(c))
    return { kind: 'history', history: assembleBatterystatsHistory([...items, ...d.end()]) }
  } catch (e) {
    return refused(e)
  }
}

/** What a file gives, in brief: rows, or records and warning codes, or the refusal's code. */
function brief(read: Read): unknown {
  switch (read.kind) {
    case 'checkin':
      return {
        checkin: read.rows.length,
        history: read.rows.filter((r) => r.type === 'history').length,
      }
    case 'history':
      return {
        records: read.history.items.filter((i) => i.kind === 'record').length,
        unknown: read.history.items.filter((i) => i.kind === 'unknown').length,
        warnings: (read.history.warnings ?? []).map((w) => w.code),
      }
    case 'refused':
      return { refused: read.code }
  }
}

const ok = (records: number): unknown => ({ records, unknown: 0, warnings: [] })
/**
 * Every file, by name. Record counts are the awk golden counts (history-golden.json) where a file
 * has one. The Android 4.4 capture's history overflowed its buffer ("102% used", four *OVERFLOW*
 * records): it reads, and says its time on battery disagrees with the dump's by 2,110 s.
 */
const PINNED: Readonly<Record<string, unknown>> = {
  'aosp_powermodel_bs_checkin.csv': { checkin: 7, history: 0 },
  'asksven_androidcommon_dumpsys_batterystats_2014.txt': {
    records: 22496,
    unknown: 0,
    warnings: [BatterystatsWarnings.HISTORY_INCOMPLETE],
  },
  'emanafa_bstats.log': ok(5),
  'emanafa_bstats1.log': ok(20),
  'hpbl_exercicio_podcast_samsung_batterystats.txt': ok(97),
  'milechwan_exercicio_podcast_batterystats.txt': ok(865),
  'petra_batterystats_example.txt': ok(7),
  'redmik80pro_android15_batterystats.txt': ok(1668),
  'redmik80pro_android15_batterystats0.txt': ok(44),
  'redmik80pro_android15_batterystats3.txt': ok(11048),
  'android8.1-pixel-wrapped-details.txt': ok(20),
  'checkin-after-reset.csv': { checkin: 33, history: 20 },
}

describe('every batterystats file: what it gives (issue 16)', () => {
  test('every file found is pinned, and every pinned file is found', () => {
    const found = cases.flatMap((c) => [...c.names]).sort()
    expect(found).toEqual([...new Set(found)].sort())
    expect(new Set(found)).toEqual(new Set(Object.keys(PINNED)))
  })
  test.each(cases)('$name', ({ names, text }) => {
    const got = brief(readOneShot(text))
    for (const name of names) expect(got, name).toEqual(PINNED[name])
  })
  test.skipIf(shared === undefined)(
    'the shared corpus copies in the repository are byte-identical',
    () => {
      for (const name of shared?.files ?? []) {
        const copy = readFileSync(join(COPIES, name), 'utf8')
        expect(copy, name).toBe(readFileSync(join(shared?.dir ?? '', name), 'utf8'))
      }
    },
  )
})

describe('every batterystats file: one-shot and chunked agree (issue 16, property)', () => {
  test.each(cases)('$name', ({ text }) => {
    const whole = readOneShot(text)
    // cuts anywhere, and cuts right after a CR (inside CR LF and CR CR LF line ends)
    const afterCr: number[] = []
    for (let i = text.indexOf('\r'); i >= 0 && afterCr.length < 5000; i = text.indexOf('\r', i + 1))
      afterCr.push(i + 1)
    const anywhere = fc.integer({ min: 0, max: text.length })
    const cut = afterCr.length === 0 ? anywhere : fc.oneof(anywhere, fc.constantFrom(...afterCr))
    // about 6 runs for the 1.6 MB captures, up to 30 for small files
    const numRuns = Math.max(5, Math.min(30, Math.floor(1e7 / text.length)))
    fc.assert(
      fc.property(fc.uniqueArray(cut, { maxLength: 40 }), (cuts) => {
        const chunked = readChunked(
          text,
          [...cuts].sort((a, b) => a - b),
        )
        expect(chunked).toEqual(whole)
      }),
      { numRuns },
    )
  })
})
