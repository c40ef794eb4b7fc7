/**
 * The streaming Perfetto decoder: however a trace is split into chunks, it returns what the
 * one-shot decoder returns for the whole trace, and fails with the same error (code, message,
 * offset) where that fails — over the real traces of the corpus, a virtual-device trace with the
 * schedule, gzip- and zlib-compressed traces, traces cut short and bytes flipped.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { deflateSync, gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { decodePowerTrace, PowerTraceDecoder } from '../../../src/formats/perfetto/trace.js'
import { TraceType } from '../../../src/formats/perfetto/_schema.js'
import { isEnergyError } from '../../../src/model/index.js'
import { expectLinear } from '../_linear.js'
import { sharedCorpus } from '../_shared-corpus.js'

const FIXTURES = join(import.meta.dirname, '../../fixtures')

function traces(): Array<{ name: string; bytes: Uint8Array }> {
  const out: Array<{ name: string; bytes: Uint8Array }> = []
  const add = (dir: string, files: readonly string[]): void => {
    for (const f of files.filter((n) => /\.(pftrace|perfetto-trace)$/.test(n)))
      out.push({ name: f, bytes: new Uint8Array(readFileSync(join(dir, f))) })
  }
  add(join(FIXTURES, 'perfetto'), readdirSync(join(FIXTURES, 'perfetto')))
  const corpus = join(FIXTURES, 'corpus/5_power_monitor')
  add(corpus, readdirSync(corpus))
  const shared = sharedCorpus('5_power_monitor')
  if (shared !== undefined) add(shared.dir, shared.files)
  return out
}

/** What a decode gave: its result, or its error's code, message and details. */
function outcome(decode: () => unknown): unknown {
  try {
    return { ok: decode() }
  } catch (error) {
    if (!isEnergyError(error)) throw error
    return { code: error.code, message: error.message, details: error.details }
  }
}

function chunked(bytes: Uint8Array, cuts: readonly number[]): unknown {
  return outcome(() => {
    const decoder = new PowerTraceDecoder()
    let at = 0
    for (const cut of [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)) {
      decoder.push(bytes.subarray(at, cut))
      at = cut
    }
    decoder.push(bytes.subarray(at))
    return decoder.end()
  })
}

/** A trace whose packets Perfetto compressed (`compressed_packets`, zlib). */
function compressed(bytes: Uint8Array): Uint8Array {
  return TraceType.encode({ packet: [{ compressed_packets: deflateSync(bytes) }] }).finish()
}

const all = traces()

describe('PowerTraceDecoder', () => {
  test('the corpus has traces to split', () => {
    expect(all.length).toBeGreaterThanOrEqual(4)
    expect(all.some((t) => t.name.startsWith('virtual-device'))).toBe(true)
  })

  test.each(all.map((t) => [t.name, t.bytes] as const))(
    '%s: any chunking decodes as the whole does',
    (_name, bytes) => {
      const whole = outcome(() => decodePowerTrace(bytes))
      expect(whole).toHaveProperty('ok')
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 12 }), (cuts) => {
          expect(chunked(bytes, cuts)).toEqual(whole)
        }),
        // Fewer runs of the megabyte traces: each decode takes a while.
        { numRuns: bytes.length > 1_000_000 ? 6 : 40 },
      )
      // Byte by byte: every header and packet cut at every place.
      if (bytes.length < 300_000) expect(chunked(bytes, [...bytes.keys()])).toEqual(whole)
    },
  )

  test('gzip- and zlib-compressed traces, in any chunks', () => {
    const [first] = all
    if (first === undefined) throw new Error('no trace')
    for (const bytes of [gzipSync(first.bytes), compressed(first.bytes)]) {
      const whole = outcome(() => decodePowerTrace(bytes))
      expect(whole).toHaveProperty('ok')
      fc.assert(
        fc.property(fc.array(fc.nat(), { maxLength: 8 }), (cuts) => {
          expect(chunked(bytes, cuts)).toEqual(whole)
        }),
        { numRuns: 30 },
      )
    }
  })

  test('a trace cut short or damaged fails as the whole does, wherever it is split', () => {
    const inputs = all.map((t) => t.bytes).filter((b) => b.length < 200_000)
    let failed = 0
    fc.assert(
      fc.property(
        fc.constantFrom(...inputs),
        fc.nat(),
        fc.array(fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }), {
          maxLength: 3,
        }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (bytes, cutAt, flips, cuts) => {
          const input = bytes.slice(0, 1 + (cutAt % bytes.length))
          for (const f of flips) input[f.at % input.length] = f.value
          const whole = outcome(() => decodePowerTrace(input))
          if (!(typeof whole === 'object' && whole !== null && 'ok' in whole)) failed++
          expect(chunked(input, cuts)).toEqual(whole)
        },
      ),
      { numRuns: 300 },
    )
    // Most cut traces end inside a packet: the property compared errors, not only results.
    expect(failed).toBeGreaterThan(100)
  })

  test('push after end, or end twice, is a mistake of the caller', () => {
    const decoder = new PowerTraceDecoder()
    decoder.push(all[0]?.bytes ?? new Uint8Array())
    decoder.end()
    expect(() => decoder.push(new Uint8Array(1))).toThrow(/after end/)
    expect(() => decoder.end()).toThrow(/twice/)
  })

  test('in small chunks it stays linear in the trace', () => {
    const trace = all.find((t) => t.name.startsWith('virtual-device'))?.bytes
    if (trace === undefined) throw new Error('no virtual-device trace')
    expectLinear(
      (n) => {
        const input = new Uint8Array(trace.length * n)
        for (let i = 0; i < n; i++) input.set(trace, i * trace.length)
        return input
      },
      (input) => {
        const decoder = new PowerTraceDecoder()
        for (let i = 0; i < input.length; i += 7) decoder.push(input.subarray(i, i + 7))
        return decoder.end()
      },
      20,
    )
  })
})
