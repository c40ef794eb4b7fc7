/**
 * `vitest-energy classify <spectrum.json>`: colours methods red/yellow/green from a spectrum of
 * tests (issue 8). Reads the file, runs the pure classifier, prints JSON or a table.
 */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import {
  appendToKnowledgeBase,
  classify,
  ClassifyErrors,
  emptyKnowledgeBase,
  ERROR_VECTOR_MODES,
  loadKnowledgeBase,
  parseSpectrumInput,
  PRESETS,
  renderClassificationTable,
  saveKnowledgeBase,
  toHierarchy,
  type ErrorVectorMode,
  type KnowledgeBase,
  type KnowledgeBaseScope,
  type Preset,
} from '../../classify/index.js'
import { EnergyError } from '../../model/index.js'
import type { CliCommand } from '../_command.js'
import { parseCommandArgs, usageError } from '../_args.js'

const usage = `Usage: vitest-energy classify <spectrum.json> [options]

Colours the app's methods red/yellow/green by how often they run in energy-greedy tests.

Options:
  --preset <name>          couto2014 (default) | greendroid-code
  --format <name>          json (default) | table | hierarchy (sunburst JSON)
  --error-vector <name>    couto2014 (default) | budget | statistical
  --knowledge-base <file>  persistent knowledge base (JSON); its powers join the input's
  --update-knowledge-base  append this run's test powers to --knowledge-base (created if missing)
  --scope <scope>          knowledge-base scope: global (default) | app:<application id>;
                           must match the file's scope
  --alpha <p>              significance level of the statistical error vector (default 0.05)

Input: { "tests": [{ "id": "t1", "energyJ": 1.2, "durationS": 0.5, "methods": ["com.a.B.m"] }],
         "knowledgeBase": [0.31], "excessive": ["t1"] }   (see docs/classifier.md)
`

export const classifyCommand: CliCommand = {
  name: 'classify',
  summary: 'colour methods red/yellow/green from a test spectrum (Couto 2014)',
  usage,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(args, {
      allowPositionals: true,
      options: {
        preset: { type: 'string', default: 'couto2014' },
        format: { type: 'string', default: 'json' },
        'error-vector': { type: 'string', default: 'couto2014' },
        'knowledge-base': { type: 'string' },
        'update-knowledge-base': { type: 'boolean', default: false },
        scope: { type: 'string' },
        alpha: { type: 'string' },
      },
    })
    if (positionals.length !== 1 || positionals[0] === undefined)
      throw usageError('expected exactly one <spectrum.json>')
    const preset = values.preset
    if (!(PRESETS as readonly string[]).includes(preset))
      throw usageError(`unknown preset '${preset}' (use ${PRESETS.join(' | ')})`)
    const format = values.format
    if (format !== 'json' && format !== 'table' && format !== 'hierarchy')
      throw usageError(`unknown format '${format}' (use json | table | hierarchy)`)
    const mode = values['error-vector']
    if (!(ERROR_VECTOR_MODES as readonly string[]).includes(mode))
      throw usageError(`unknown error vector '${mode}' (use ${ERROR_VECTOR_MODES.join(' | ')})`)
    const alpha = values.alpha === undefined ? undefined : Number(values.alpha)
    if (alpha !== undefined && !(alpha > 0 && alpha < 1))
      throw usageError(`--alpha must be in (0, 1), got '${values.alpha ?? ''}'`)
    const kbPath =
      values['knowledge-base'] === undefined ? undefined : resolve(io.cwd, values['knowledge-base'])
    const scope = values.scope
    if (scope !== undefined && scope !== 'global' && !/^app:.+/.test(scope)) {
      throw usageError(`--scope must be global or app:<application id>, got '${scope}'`)
    }
    if (scope !== undefined && kbPath === undefined)
      throw usageError('--scope needs --knowledge-base <file>')
    if (values['update-knowledge-base'] && kbPath === undefined)
      throw usageError('--update-knowledge-base needs --knowledge-base <file>')

    const file = resolve(io.cwd, positionals[0])
    let text: string
    try {
      text = await readFile(file, 'utf8')
    } catch (cause) {
      throw new EnergyError({
        code: ClassifyErrors.INVALID_SPECTRUM,
        message: `cannot read '${positionals[0]}'`,
        hint: 'Pass the path of a spectrum JSON file.',
        details: { format: 'spectrum', path: file },
        cause,
      })
    }
    let json: unknown
    try {
      json = JSON.parse(text)
    } catch (cause) {
      throw new EnergyError({
        code: ClassifyErrors.INVALID_SPECTRUM,
        message: `'${positionals[0]}' is not valid JSON (${cause instanceof Error ? cause.message : String(cause)})`,
        hint: 'Check the file; see docs/classifier.md for the input shape.',
        details: { format: 'spectrum', path: file },
        cause,
      })
    }
    const input = parseSpectrumInput(json, positionals[0])

    let kb: KnowledgeBase | undefined
    if (kbPath !== undefined) {
      try {
        kb = await loadKnowledgeBase(kbPath)
      } catch (error) {
        const missing = error instanceof EnergyError && error.code === ClassifyErrors.KB_READ
        if (!(missing && values['update-knowledge-base'])) throw error
        kb = emptyKnowledgeBase((scope ?? 'global') as KnowledgeBaseScope)
      }
      if (scope !== undefined && kb.scope !== scope) {
        throw usageError(
          `knowledge base '${values['knowledge-base'] ?? ''}' has scope ${kb.scope}, not ${scope}`,
        )
      }
    }
    const knowledgeBase = [...(kb?.averagePowersW ?? []), ...(input.knowledgeBase ?? [])]
    const result = classify(input.tests, {
      preset: preset as Preset,
      mode: mode as ErrorVectorMode,
      knowledgeBase,
      ...(kb === undefined ? {} : { knowledgeBaseScope: kb.scope }),
      ...(alpha === undefined ? {} : { alpha }),
      ...(input.excessive === undefined ? {} : { excessive: input.excessive }),
      ...(input.allMethods === undefined ? {} : { allMethods: input.allMethods }),
    })
    if (values['update-knowledge-base'] && kbPath !== undefined && kb !== undefined) {
      await saveKnowledgeBase(
        kbPath,
        appendToKnowledgeBase(
          kb,
          input.tests.map((t) => t.averagePowerW),
        ),
      )
    }
    if (format === 'table') io.out(renderClassificationTable(result))
    else
      io.out(`${JSON.stringify(format === 'hierarchy' ? toHierarchy(result) : result, null, 2)}\n`)
    return 0
  },
}
