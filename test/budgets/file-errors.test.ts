/**
 * A broken `energy-budgets.json` says where it is broken: E_BUDGET_FILE_INVALID naming the file and
 * the line:column (in the message and in `details`), and for a value of the wrong shape its JSON
 * path. The places are found by our own scanner, checked here against JSON.parse's own positions
 * (Node 20 says "position N", Node 22 adds "(line L column C)", some messages give none).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  findJsonSyntaxProblem,
  findJsonValue,
  formatJsonPath,
  lineColumn,
} from '../../src/budgets/_json-location.js'
import { BudgetErrors, parseBudgetFile, readBudgetFile } from '../../src/budgets/index.js'
import { isEnergyError, type EnergyError } from '../../src/model/index.js'

const golden = await readFile(
  fileURLToPath(new URL('../fixtures/budgets/energy-budgets.json', import.meta.url)),
  'utf8',
)
const FILE = '/project/energy-budgets.json'

function rejection(text: string, source = FILE): EnergyError {
  try {
    parseBudgetFile(text, source)
  } catch (error) {
    if (isEnergyError(error)) return error
    throw error
  }
  throw new Error('expected an EnergyError')
}

/** The golden file with one line replaced (1-based). */
/** The column of a comma added at the end of line 8. */
const LINE_8_END = (golden.split('\n')[7]?.length ?? 0) + 1

function withLine(line: number, replace: (text: string) => string): string {
  const lines = golden.split('\n')
  lines[line - 1] = replace(lines[line - 1] ?? '')
  return lines.join('\n')
}

/** Line and column from JSON.parse's message, when it gives them. */
function nodePlace(text: string): { line: number; column: number } | undefined {
  let message = ''
  try {
    JSON.parse(text)
  } catch (error) {
    message = (error as Error).message
  }
  const lineCol = /line (\d+) column (\d+)/.exec(message)
  if (lineCol !== null) return { line: Number(lineCol[1]), column: Number(lineCol[2]) }
  const position = /position (\d+)/.exec(message)
  return position === null ? undefined : lineColumn(text, Number(position[1]))
}

describe('a file that is not JSON', () => {
  test.each([
    [
      'a missing comma between two properties',
      withLine(7, (l) => l.replace('2.8,', '2.8')),
      { line: 8, column: 11 },
      `expected ',' or '}' after a property, found '"'`,
    ],
    [
      'a trailing comma',
      withLine(8, (l) => `${l},`),
      { line: 9, column: 9 },
      `expected a property after the ',' at 8:${LINE_8_END} (JSON allows no trailing comma: remove it), found '}'`,
    ],
    [
      'a key in single quotes',
      withLine(10, (l) => l.replace('"Pixel 6"', "'Pixel 6'")),
      { line: 10, column: 9 },
      "expected a property name in double quotes, found '''",
    ],
    [
      'a comment',
      withLine(6, (l) => `${l} // any device`),
      { line: 6, column: 16 },
      "expected a property name in double quotes, found '/'",
    ],
    [
      'a truncated file',
      golden.slice(0, golden.indexOf('"syncing"') + 4),
      { line: 17, column: 11 },
      `expected a closing '"' (the string is not terminated), found the end of the file`,
    ],
    [
      'a bad number',
      withLine(7, (l) => l.replace('2.8', '2.')),
      { line: 7, column: 22 + 2 },
      "expected a digit, found ','",
    ],
    [
      'a bad escape',
      withLine(5, (l) => l.replace('opening', 'open\\x')),
      { line: 5, column: 20 },
      "expected an escape: \\\" \\\\ \\/ \\b \\f \\n \\r \\t or \\uXXXX, found 'x'",
    ],
    [
      'text after the top-level value',
      `${golden}}\n`,
      { line: 25, column: 1 },
      "expected the end of the file after the top-level value, found '}'",
    ],
  ])('%s: the message and details give the file and line:column', (_, text, place, problem) => {
    const error = rejection(text)
    expect(error.code).toBe(BudgetErrors.FILE_INVALID)
    expect(error.details).toEqual({ format: FILE, file: FILE, ...place })
    expect(error.message).toBe(
      `[${BudgetErrors.FILE_INVALID}] ${FILE}, line ${place.line}: not valid JSON (at ${place.line}:${place.column}): ${problem}\n` +
        `  → Fix the file by hand at line ${place.line}, column ${place.column} (the format: docs/budgets.md), or delete it and re-run with \`vitest -u\` (or VITEST_ENERGY_UPDATE=1) to write budgets from measurements.`,
    )
    const node = nodePlace(text)
    if (node !== undefined) expect(node, 'where JSON.parse says').toEqual(place)
  })

  test('Windows line endings count as one line break', () => {
    const text = withLine(7, (l) => l.replace('2.8,', '2.8')).replaceAll('\n', '\r\n')
    expect(rejection(text).details).toMatchObject({ line: 8, column: 11 })
  })

  test('a byte-order mark is ignored', () => {
    expect(parseBudgetFile(`\uFEFF${golden}`)).toEqual(parseBudgetFile(golden))
    expect(rejection(`\uFEFF{ x`).details).toMatchObject({ line: 1, column: 3 })
  })

  test('invisible characters are named by code point', () => {
    expect(rejection('{ "schemaVersion":\u00a01 }').message).toContain('found U+00A0')
  })

  test('nesting too deep to scan still gives the coded error, without a place', () => {
    const error = rejection('['.repeat(100_000))
    expect(error.code).toBe(BudgetErrors.FILE_INVALID)
    expect(error.details).toEqual({ format: FILE, file: FILE })
    expect(error.message).toContain('not valid JSON: ')
  })
})

describe('a value of the wrong shape', () => {
  const entry = 'tests["feed.test.ts"]["feed > opening the feed"]["*"]'

  test('deep inside: its JSON path and the line:column of the value', () => {
    const error = rejection(withLine(7, (l) => l.replace('2.8', '"2.8"')))
    expect(error.details).toEqual({
      format: FILE,
      file: FILE,
      line: 7,
      column: 22,
      path: `${entry}.energyJ`,
    })
    expect(error.message.split('\n')[0]).toBe(
      `[${BudgetErrors.FILE_INVALID}] ${FILE}, line 7: ${entry}.energyJ (at 7:22) must be a finite number ≥ 0 (got "2.8")`,
    )
  })

  test('a missing value: the place of the object that lacks it', () => {
    const text = withLine(19, (l) => l.replace('"energyJ": 4.5', '"measuredEnergyJ": 4.5'))
    expect(rejection(text).details).toMatchObject({
      line: 18,
      column: 14,
      path: 'tests["sync.test.ts"].syncing["*"].energyJ',
    })
    expect(rejection(text).message).toContain('must be a finite number ≥ 0 (got nothing)')
  })

  test('a misspelt field: its place, and the field it was probably meant to be', () => {
    for (const typo of ['energyj', 'energy', 'measuredEnergy']) {
      const text = withLine(19, (l) => l.replace('"energyJ": 4.5', `"energyJ": 4.5, "${typo}": 1`))
      const error = rejection(text)
      expect(error.details).toMatchObject({
        line: 19,
        path: `tests["sync.test.ts"].syncing["*"].${typo}`,
      })
      const meant = typo === 'measuredEnergy' ? 'measuredEnergyJ' : 'energyJ'
      expect(error.message).toContain(
        `is not a field of a budget (did you mean "${meant}"?): an entry has "energyJ" and "measuredEnergyJ"`,
      )
    }
    // A renamed energyJ says so rather than that energyJ is missing.
    const renamed = withLine(19, (l) => l.replace('"energyJ": 4.5', '"energyj": 4.5'))
    expect(rejection(renamed).message).toContain('(did you mean "energyJ"?)')
  })

  test('a key given twice: the one JSON.parse keeps (the last)', () => {
    const text = withLine(12, (l) => `${l}, "measuredEnergyJ": "1.7"`)
    expect(rejection(text).details).toMatchObject({ line: 12, column: 54 })
  })

  test('the top level and the schema version', () => {
    expect(rejection('\n  [1, 2]\n').details).toEqual({
      format: FILE,
      file: FILE,
      line: 2,
      column: 3,
    })
    expect(rejection('{\n  "schemaVersion": "1",\n  "tests": {}\n}').details).toMatchObject({
      line: 2,
      column: 20,
      path: 'schemaVersion',
    })
    expect(rejection('{\n  "tests": {}\n}').details).toMatchObject({
      line: 1,
      column: 1,
      path: 'schemaVersion',
    })
  })
})

test('a file read from disk is named by its path', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'budget-errors-'))
  try {
    const path = join(dir, 'energy-budgets.json')
    await writeFile(
      path,
      withLine(7, (l) => l.replace('2.8,', '2.8')),
    )
    let error: unknown
    try {
      readBudgetFile(path)
    } catch (e) {
      error = e
    }
    expect(isEnergyError(error) && error.details).toEqual({
      format: path,
      file: path,
      line: 8,
      column: 11,
    })
    expect(isEnergyError(error) && error.message).toContain(
      `${path}, line 8: not valid JSON (at 8:11)`,
    )
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

describe('the scanner', () => {
  test('agrees with JSON.parse on what is JSON, and on where it breaks', () => {
    const mutated = fc
      .tuple(
        fc.jsonValue().map((v) => JSON.stringify(v, null, 2)),
        fc.nat(),
        fc.string({ unit: fc.constantFrom(...'{}[],:"\\u0-e. \n\t\u0001tn1x'), maxLength: 3 }),
        fc.nat(3),
      )
      .map(([json, at, insert, remove]) => {
        const i = at % (json.length + 1)
        return json.slice(0, i) + insert + json.slice(i + remove)
      })
    fc.assert(
      fc.property(mutated, (text) => {
        let valid = true
        try {
          JSON.parse(text)
        } catch {
          valid = false
        }
        const problem = findJsonSyntaxProblem(text)
        expect(problem === undefined, 'valid').toBe(valid)
        const node = nodePlace(text)
        if (problem !== undefined && node !== undefined)
          expect(lineColumn(text, problem.offset)).toEqual(node)
      }),
      { numRuns: 300 },
    )
  })

  test('finds values by path', () => {
    const text = '{"a": [1, {"b c": true}], "d": null}'
    expect(findJsonValue(text, [])).toBe(0)
    expect(findJsonValue(text, ['a', 1, 'b c'])).toBe(text.indexOf('true'))
    expect(findJsonValue(text, ['d'])).toBe(text.indexOf('null'))
    expect(findJsonValue(text, ['e'])).toBeUndefined()
  })

  test('lines end at \\n, \\r\\n and \\r; columns count from 1', () => {
    expect(lineColumn('ab\ncd', 4)).toEqual({ line: 2, column: 2 })
    expect(lineColumn('ab\r\ncd', 5)).toEqual({ line: 2, column: 2 })
    expect(lineColumn('ab\rcd', 4)).toEqual({ line: 2, column: 2 })
    expect(lineColumn('', 0)).toEqual({ line: 1, column: 1 })
  })

  test('paths read like JavaScript property access', () => {
    expect(formatJsonPath([])).toBe('the top level')
    expect(formatJsonPath(['tests', 'a.test.ts', 'run', '*', 'energyJ'])).toBe(
      'tests["a.test.ts"].run["*"].energyJ',
    )
    expect(formatJsonPath(['list', 0, 'x y'])).toBe('list[0]["x y"]')
  })
})
