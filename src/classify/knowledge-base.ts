/**
 * Couto's knowledge base: the average power (W) of every test analysed so far, persisted as JSON
 * so that "excessive" means "above the mean of everything seen", across runs and apps. One file
 * holds one scope: `global`, or one app (`app:<package>`). The only file in src/classify that
 * touches the file system.
 *
 * File format (schemaVersion 1):
 * `{ "schemaVersion": 1, "scope": "global" | "app:com.example", "averagePowersW": [0.31, …] }`
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import { EnergyError } from '../model/index.js'
import { ClassifyErrors } from './errors.js'

/** `global`, or `app:<application id>`. */
export type KnowledgeBaseScope = 'global' | `app:${string}`

export interface KnowledgeBase {
  readonly schemaVersion: 1
  readonly scope: KnowledgeBaseScope
  /** Average power of each earlier test, watts, oldest first. */
  readonly averagePowersW: readonly number[]
}

/** What a classification records about the knowledge base it used (before adding this run). */
export interface KnowledgeBaseSummary {
  readonly scope?: KnowledgeBaseScope
  /** Number of earlier tests. */
  readonly size: number
  /** Their mean average power, watts (0 when empty). */
  readonly meanPowerW: number
  /** `sha256:` + hex digest of the JSON array of powers, to tell runs on different bases apart. */
  readonly hash: string
}

/** An empty knowledge base of the given scope. */
export function emptyKnowledgeBase(scope: KnowledgeBaseScope = 'global'): KnowledgeBase {
  return { schemaVersion: 1, scope, averagePowersW: [] }
}

/** Size, mean and content hash of a list of powers (pure). */
export function summarizeKnowledgeBase(
  powersW: readonly number[],
  scope?: KnowledgeBaseScope,
): KnowledgeBaseSummary {
  const sum = [...powersW].sort((a, b) => a - b).reduce((s, v) => s + v, 0)
  return {
    ...(scope === undefined ? {} : { scope }),
    size: powersW.length,
    meanPowerW: powersW.length === 0 ? 0 : sum / powersW.length,
    hash: `sha256:${createHash('sha256').update(JSON.stringify(powersW)).digest('hex')}`,
  }
}

/** A new knowledge base with this run's test powers appended (pure). */
export function appendToKnowledgeBase(
  kb: KnowledgeBase,
  powersW: readonly number[],
): KnowledgeBase {
  return { ...kb, averagePowersW: [...kb.averagePowersW, ...powersW] }
}

/**
 * Reads and validates a knowledge-base file.
 * @throws EnergyError `E_CLASSIFY_KB_READ` (missing/unreadable) or `E_CLASSIFY_KB_INVALID`
 */
export async function loadKnowledgeBase(path: string): Promise<KnowledgeBase> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (cause) {
    throw new EnergyError({
      code: ClassifyErrors.KB_READ,
      message: `cannot read knowledge base '${path}'`,
      hint: 'Check the path; start a new one with saveKnowledgeBase(path, emptyKnowledgeBase()).',
      details: { format: 'knowledge base', path },
      cause,
    })
  }
  return parseKnowledgeBase(text, path)
}

/** Validates knowledge-base JSON text (pure). */
export function parseKnowledgeBase(text: string, source = 'knowledge base'): KnowledgeBase {
  const bad = (what: string): EnergyError =>
    new EnergyError({
      code: ClassifyErrors.KB_INVALID,
      message: `knowledge base ${what}`,
      hint: 'Expected { "schemaVersion": 1, "scope": "global" | "app:<id>", "averagePowersW": [W, …] }; fix or delete the file.',
      details: { format: 'knowledge base', path: source },
    })
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (cause) {
    throw new EnergyError({
      code: ClassifyErrors.KB_INVALID,
      message: `knowledge base is not valid JSON (${cause instanceof Error ? cause.message : String(cause)})`,
      hint: 'Fix or delete the file; it is rewritten by saveKnowledgeBase.',
      details: { format: 'knowledge base', path: source },
      cause,
    })
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw bad('is not a JSON object')
  const o = json as Record<string, unknown>
  if (o.schemaVersion !== 1)
    throw bad(`has schemaVersion ${JSON.stringify(o.schemaVersion) ?? 'undefined'}, expected 1`)
  if (o.scope !== 'global' && !(typeof o.scope === 'string' && /^app:.+/.test(o.scope)))
    throw bad(
      `has scope ${JSON.stringify(o.scope) ?? 'undefined'}, expected "global" or "app:<id>"`,
    )
  if (!Array.isArray(o.averagePowersW)) throw bad('has no averagePowersW array')
  const powers = o.averagePowersW.map((v: unknown, i: number) => {
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw bad(`averagePowersW[${i}] is ${JSON.stringify(v) ?? String(v)}, not a power ≥ 0 W`)
    return v
  })
  return { schemaVersion: 1, scope: o.scope as KnowledgeBaseScope, averagePowersW: powers }
}

/** Writes the knowledge base atomically (temp file + rename), creating the directory. */
export async function saveKnowledgeBase(path: string, kb: KnowledgeBase): Promise<void> {
  const tmp = `${path}.${process.pid}.tmp`
  try {
    await mkdir(dirname(path), { recursive: true })
    await writeFile(
      tmp,
      `${JSON.stringify({ schemaVersion: 1, scope: kb.scope, averagePowersW: kb.averagePowersW }, null, 2)}\n`,
    )
    await rename(tmp, path)
  } catch (cause) {
    throw new EnergyError({
      code: ClassifyErrors.KB_WRITE,
      message: `cannot write knowledge base '${path}'`,
      hint: 'Check that the directory is writable.',
      details: { format: 'knowledge base', path },
      cause,
    })
  }
}
