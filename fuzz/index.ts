/**
 * `npm run fuzz` — a mutation fuzzer over every parser (fuzz/targets.ts). Each target's inputs run
 * in a worker thread with a memory limit, one at a time, under a watchdog (2 s per input): a crash
 * (anything thrown but an `EnergyError`), a hang, a memory blow-up, or a chunked decoder that
 * disagrees with itself or with the one-shot parser is a failure. Every failing input is minimized
 * (fuzz/minimize.ts) and saved, with the split points its failure needs, under
 * test/fixtures/fuzz/<target>/, where test/formats/fuzz-regressions.test.ts keeps it as a
 * regression test.
 *
 *   npm run fuzz -- [--target art,batterystats-history] [--inputs 10000] [--seed 1]
 *                   [--max-seed-kb 256] [--timeout-ms 2000] [--no-save]
 */
import { createHash } from 'node:crypto'
import { existsSync } from 'node:fs'
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { minimize, type Minimized } from './minimize.js'
import { mutate, prng, splits } from './mutate.js'
import { problem, type InputReport } from './run-input.js'
import { TARGETS, type FuzzTarget } from './targets.js'

const repo = fileURLToPath(new URL('../', import.meta.url))
export const SAVE_DIR = join(repo, 'test/fixtures/fuzz')

/** A worker's old generation beyond this is a blow-up (it dies with ERR_WORKER_OUT_OF_MEMORY). */
const HEAP_LIMIT_MB = 768
/** Array buffers (inflated data, decoded files) beyond this after an input are a blow-up. */
const EXTERNAL_LIMIT_BYTES = 1024 * 1024 * 1024

interface Options {
  readonly targets: readonly FuzzTarget[]
  readonly inputs: number
  readonly seed: number
  readonly maxSeedBytes: number
  readonly timeoutMs: number
  readonly save: boolean
}

type Verdict = { readonly kind: 'ok' } | { readonly kind: 'failure'; readonly why: string }

function parseArgs(argv: readonly string[]): Options {
  const value = (name: string): string | undefined => {
    const i = argv.indexOf(`--${name}`)
    return i === -1 ? undefined : argv[i + 1]
  }
  const names = value('target')?.split(',') ?? []
  // A name that is a whole target's name selects that target alone (`dumpsys-power` is not also
  // `dumpsys-powerstats`); any other name selects every target it begins (`art`, `sysfs`).
  const selects = (n: string, t: FuzzTarget): boolean =>
    TARGETS.some((u) => u.name === n) ? t.name === n : t.name.startsWith(n)
  const targets =
    names.length === 0 ? TARGETS : TARGETS.filter((t) => names.some((n) => selects(n, t)))
  if (targets.length === 0) {
    throw new Error(
      `no target matches ${names.join(', ')}; targets: ${TARGETS.map((t) => t.name).join(', ')}`,
    )
  }
  return {
    targets,
    inputs: Number(value('inputs') ?? 10_000),
    seed: Number(value('seed') ?? 1),
    maxSeedBytes: Number(value('max-seed-kb') ?? 256) * 1024,
    timeoutMs: Number(value('timeout-ms') ?? 2000),
    save: !argv.includes('--no-save'),
  }
}

/** The target's seed files (cut to maxBytes), its saved failures, or a tiny default. */
async function loadSeeds(target: FuzzTarget, maxBytes: number): Promise<Uint8Array[]> {
  const seeds: Uint8Array[] = []
  for (const { dir, match } of target.seeds) {
    const path = join(repo, dir)
    if (!existsSync(path)) continue
    for (const name of (await readdir(path, { recursive: true })).sort()) {
      if (!match.test(name)) continue
      const bytes = await readFile(join(path, name)).catch(() => undefined)
      if (bytes !== undefined && bytes.length > 0)
        seeds.push(new Uint8Array(bytes.subarray(0, maxBytes)))
    }
  }
  const saved = join(SAVE_DIR, target.name)
  if (existsSync(saved)) {
    for (const name of await readdir(saved))
      seeds.push(new Uint8Array(await readFile(join(saved, name))))
  }
  return seeds.length > 0 ? seeds : [new TextEncoder().encode('0\n')]
}

/** One worker for a target, restarted after a hang or a crash of the thread itself. */
class Runner {
  private worker: Worker | undefined
  private nextId = 0

  constructor(
    private readonly target: FuzzTarget,
    private readonly timeoutMs: number,
  ) {}

  private start(): Worker {
    this.worker ??= new Worker(new URL('./worker.mjs', import.meta.url), {
      workerData: { target: this.target.name },
      resourceLimits: { maxOldGenerationSizeMb: HEAP_LIMIT_MB },
      stdout: true,
      stderr: true,
    })
    return this.worker
  }

  async run(input: Uint8Array, points: readonly number[]): Promise<Verdict> {
    const worker = this.start()
    const id = this.nextId++
    const result = await new Promise<Verdict | { report: InputReport; externalBytes: number }>(
      (resolve) => {
        const done = (value: Verdict | { report: InputReport; externalBytes: number }): void => {
          clearTimeout(timer)
          worker.off('message', onMessage)
          worker.off('error', onError)
          worker.off('exit', onExit)
          resolve(value)
        }
        const onMessage = (m: { id: number; report: InputReport; externalBytes: number }): void => {
          if (m.id === id) done(m)
        }
        const onError = (error: Error & { code?: string }): void => {
          this.worker = undefined
          done({
            kind: 'failure',
            why:
              error.code === 'ERR_WORKER_OUT_OF_MEMORY'
                ? `memory: heap over ${HEAP_LIMIT_MB} MB`
                : `crash: worker ${error.message}`,
          })
        }
        const onExit = (): void => {
          this.worker = undefined
          done({ kind: 'failure', why: 'crash: worker exited' })
        }
        const timer = setTimeout(() => {
          this.worker = undefined
          void worker.terminate()
          done({ kind: 'failure', why: `hang: over ${this.timeoutMs} ms` })
        }, this.timeoutMs)
        worker.on('message', onMessage)
        worker.once('error', onError)
        worker.once('exit', onExit)
        worker.postMessage({ id, input, points })
      },
    )
    if ('kind' in result) return result
    if (result.externalBytes > EXTERNAL_LIMIT_BYTES) {
      await this.close() // let the buffers go with the thread
      return {
        kind: 'failure',
        why: `memory: ${Math.round(result.externalBytes / 2 ** 20)} MiB of buffers`,
      }
    }
    const why = problem(this.target, result.report)
    return why === undefined ? { kind: 'ok' } : { kind: 'failure', why }
  }

  async close(): Promise<void> {
    const w = this.worker
    this.worker = undefined
    await w?.terminate()
  }
}

/** The kind of a failure (`crash`, `hang`, `memory`, `mismatch`), which minimization keeps. */
const kindOf = (why: string): string => why.slice(0, why.indexOf(':'))

/**
 * The input as `<kind>-<sha1>.bin`, and the split points its failure needs, if any, beside it as
 * `<kind>-<sha1>.points.json` (the regression test splits the input there too).
 */
async function save(
  target: FuzzTarget,
  kind: string,
  { input, points }: Minimized,
): Promise<string> {
  const dir = join(SAVE_DIR, target.name)
  await mkdir(dir, { recursive: true })
  const name = `${kind}-${createHash('sha1').update(input).digest('hex').slice(0, 10)}`
  await writeFile(join(dir, `${name}.bin`), input)
  if (points.length > 0) await writeFile(join(dir, `${name}.points.json`), JSON.stringify(points))
  return relative(repo, join(dir, `${name}.bin`))
}

interface TargetSummary {
  readonly target: string
  readonly seeds: number
  readonly inputs: number
  readonly failures: { kind: string; why: string; saved?: string }[]
  readonly seconds: number
}

async function fuzzTarget(target: FuzzTarget, options: Options): Promise<TargetSummary> {
  const seeds = await loadSeeds(target, options.maxSeedBytes)
  const rand = prng(options.seed ^ hash(target.name))
  const runner = new Runner(target, options.timeoutMs)
  const patient = new Runner(target, options.timeoutMs * 5)
  const failures: TargetSummary['failures'] = []
  const seen = new Set<string>()
  const started = Date.now()
  let lastProgress = started
  try {
    for (let i = 0; i < options.inputs; i++) {
      const input = mutate(seeds, rand)
      const points = splits(input.length, rand)
      const verdict = await runner.run(input, points)
      if (Date.now() - lastProgress > 10_000) {
        lastProgress = Date.now()
        process.stderr.write(`  ⋯ ${target.name}: ${i}/${options.inputs} inputs\n`)
      }
      if (verdict.kind === 'ok') continue
      // A busy machine can stall one input past the watchdog: a hang must repeat with five times
      // the time before it counts.
      if (kindOf(verdict.why) === 'hang' && (await patient.run(input, points)).kind === 'ok')
        continue
      // One report per distinct failure (the message without numbers).
      const key = verdict.why.replace(/\d+/g, 'N')
      if (seen.has(key)) continue
      seen.add(key)
      const kind = kindOf(verdict.why)
      const small = await minimize(input, points, async (candidate, candidatePoints) => {
        const again = await runner.run(candidate, candidatePoints)
        return again.kind === 'failure' && kindOf(again.why) === kind
      })
      const saved = options.save ? await save(target, kind, small) : undefined
      failures.push({ kind, why: verdict.why, ...(saved ? { saved } : {}) })
      process.stderr.write(`  ✗ ${target.name}: ${verdict.why}${saved ? ` → ${saved}` : ''}\n`)
    }
  } finally {
    await runner.close()
    await patient.close()
  }
  return {
    target: target.name,
    seeds: seeds.length,
    inputs: options.inputs,
    failures,
    seconds: (Date.now() - started) / 1000,
  }
}

function hash(text: string): number {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return h >>> 0
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2))
  if (!existsSync(join(repo, '../shared/corpus'))) {
    process.stderr.write('fuzz: ../shared/corpus is absent; seeding from test/fixtures only\n')
  }
  let failed = 0
  let total = 0
  for (const target of options.targets) {
    const s = await fuzzTarget(target, options)
    total += s.inputs
    failed += s.failures.length
    const rate = Math.round(s.inputs / Math.max(s.seconds, 0.001))
    const verdict =
      s.failures.length === 0
        ? 'clean'
        : `${s.failures.length} failure(s): ${s.failures.map((f) => f.kind).join(', ')}`
    process.stdout.write(
      `${target.name.padEnd(22)} ${String(s.seeds).padStart(4)} seeds ${String(s.inputs).padStart(8)} inputs  ${s.seconds.toFixed(1).padStart(7)} s  ${String(rate).padStart(6)}/s  ${verdict}\n`,
    )
  }
  process.stdout.write(
    `fuzz: ${total} inputs over ${options.targets.length} targets, seed ${options.seed}: ${failed === 0 ? 'no crash, hang, mismatch or memory blow-up' : `${failed} failure(s)`}\n`,
  )
  process.exitCode = failed === 0 ? 0 : 1
}

await main()
