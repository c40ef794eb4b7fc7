/**
 * A coverage-blind mutator: each input is a seed file with one to four stacked mutations — bit
 * flips, extreme bytes, inserts and deletes, splices with another seed of the same format, cuts at
 * structural boundaries, huge length fields and varints, deep nesting, long lines, line-ending
 * variants and extreme numbers. Deterministic for a given PRNG state.
 */
import { mulberry32 } from '../src/stats/index.js'

/** The mutations' random numbers: the project's seeded PRNG (mulberry32). */
export const prng = mulberry32

/** Inputs never grow past this (a long line or deep nesting stays far below). */
export const MAX_INPUT_BYTES = 4 * 1024 * 1024

const enc = new TextEncoder()

type Mutation = (input: Uint8Array, rand: () => number, seeds: readonly Uint8Array[]) => Uint8Array

const int = (rand: () => number, n: number): number => Math.floor(rand() * n)

function pick<T>(rand: () => number, items: readonly [T, ...T[]]): T {
  return items[int(rand, items.length)] ?? items[0]
}

function splice(input: Uint8Array, at: number, remove: number, insert: Uint8Array): Uint8Array {
  const start = Math.min(at, input.length)
  const end = Math.min(start + remove, input.length)
  const out = new Uint8Array(start + insert.length + (input.length - end))
  out.set(input.subarray(0, start), 0)
  out.set(insert, start)
  out.set(input.subarray(end), start + insert.length)
  return out
}

/** Offsets just after a newline, `>`, `{`, `,` or on a 4-byte boundary: where formats split. */
function boundary(input: Uint8Array, rand: () => number): number {
  if (input.length === 0) return 0
  const from = int(rand, input.length)
  for (let i = from; i < input.length && i < from + 4096; i++) {
    const b = input[i]
    if (b === 0x0a || b === 0x3e || b === 0x7b || b === 0x2c) return i + 1
  }
  return from - (from % 4)
}

function repeatText(unit: string, times: number): Uint8Array {
  return enc.encode(unit.repeat(times))
}

const MUTATIONS: readonly [Mutation, ...Mutation[]] = [
  // bit flips
  (input, rand) => {
    const out = input.slice()
    for (let n = 1 + int(rand, 8); n > 0 && out.length > 0; n--) {
      const at = int(rand, out.length)
      out[at] = (out[at] ?? 0) ^ (1 << int(rand, 8))
    }
    return out
  },
  // extreme bytes
  (input, rand) => {
    const out = input.slice()
    if (out.length > 0)
      out[int(rand, out.length)] = pick(rand, [0x00, 0xff, 0x7f, 0x80, 0x0a, 0x0d])
    return out
  },
  // insert random bytes
  (input, rand) => {
    const bytes = new Uint8Array(1 + int(rand, 64)).map(() => int(rand, 256))
    return splice(input, int(rand, input.length + 1), 0, bytes)
  },
  // delete a range
  (input, rand) => splice(input, int(rand, input.length + 1), 1 + int(rand, 256), new Uint8Array()),
  // duplicate a range
  (input, rand) => {
    const at = int(rand, input.length + 1)
    return splice(input, int(rand, input.length + 1), 0, input.slice(at, at + 1 + int(rand, 512)))
  },
  // splice with another seed of the format
  (input, rand, seeds) => {
    const other = seeds[int(rand, seeds.length)] ?? input
    const at = boundary(other, rand)
    return splice(input, boundary(input, rand), input.length, other.subarray(at))
  },
  // truncate at a structural boundary
  (input, rand) => input.slice(0, boundary(input, rand)),
  // a huge 32-bit length field or a 10-byte varint
  (input, rand) => {
    const huge =
      rand() < 0.5
        ? new Uint8Array([0xff, 0xff, 0xff, 0xff])
        : new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])
    return splice(input, boundary(input, rand), rand() < 0.5 ? huge.length : 0, huge)
  },
  // deep nesting
  (input, rand) => {
    const unit = pick(rand, ['a {', '<a>', '[', '(', '{"a":'])
    return splice(input, boundary(input, rand), 0, repeatText(unit, 1000 + int(rand, 20_000)))
  },
  // a long line
  (input, rand) => {
    const unit = pick(rand, ['x', '9', '(', ' ', ',', '\t'])
    return splice(input, boundary(input, rand), 0, repeatText(unit, 10_000 + int(rand, 200_000)))
  },
  // line-ending variants
  (input, rand) => {
    const ending = pick(rand, ['\r\n', '\r\r\n', '\r', '\n\n'])
    const text = new TextDecoder('latin1').decode(input)
    const changed = rand() < 0.5 ? text.replaceAll('\n', ending) : text.replace('\n', ending)
    return Uint8Array.from(changed, (c) => c.charCodeAt(0) & 0xff)
  },
  // numeric extremes in place of a digit run
  (input, rand) => {
    const text = new TextDecoder('latin1').decode(input)
    const runs = [...text.matchAll(/\d+/g)]
    const run = runs[int(rand, runs.length)]
    if (run?.index === undefined) return input
    const value = pick(rand, [
      '99999999999999999999',
      '-1',
      '0',
      'NaN',
      '1e308',
      '-0',
      '4294967296',
    ])
    return splice(input, run.index, run[0].length, enc.encode(value))
  },
]

/** One input for the fuzzer: a seed with 1–4 stacked mutations, capped at MAX_INPUT_BYTES. */
export function mutate(seeds: readonly Uint8Array[], rand: () => number): Uint8Array {
  let input = seeds[int(rand, seeds.length)] ?? new Uint8Array()
  for (let n = 1 + int(rand, 4); n > 0; n--) {
    input = pick(rand, MUTATIONS)(input, rand, seeds)
    if (input.length > MAX_INPUT_BYTES) input = input.subarray(0, MAX_INPUT_BYTES)
  }
  return input
}

/** Random split points for the chunked decoder (sorted, within the input). */
export function splits(length: number, rand: () => number): number[] {
  if (length === 0) return []
  const count = rand() < 0.3 ? Math.min(length, 1 + int(rand, 64)) : 1 + int(rand, 8)
  const points = new Set<number>()
  for (let i = 0; i < count; i++) points.add(1 + int(rand, Math.max(1, length - 1)))
  return [...points].filter((p) => p < length).sort((a, b) => a - b)
}
