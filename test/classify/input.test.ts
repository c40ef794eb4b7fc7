/** Negative and edge tests of every user-facing input: spectrum JSON, knowledge base, error vectors. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, test } from 'vitest'
import {
  classify,
  errorVector,
  isGreen,
  isRed,
  isYellow,
  loadKnowledgeBase,
  methodOwner,
  parseKnowledgeBase,
  parseSpectrumInput,
  saveKnowledgeBase,
  spectrumFromResults,
  summarizeKnowledgeBase,
  testSpectrum,
  toHierarchy,
} from '../../src/classify/index.js'
import {
  isEnergyError,
  measuredResult,
  methodEnergy,
  type EnergyError,
} from '../../src/model/index.js'

function thrown(fn: () => unknown): EnergyError {
  try {
    fn()
  } catch (error) {
    if (isEnergyError(error)) return error
    throw new Error(`not an EnergyError: ${String(error)}`)
  }
  throw new Error('did not throw')
}

const ok = { tests: [{ id: 't1', energyJ: 1, durationS: 2, methods: ['com.a.B.m'] }] }

describe('parseSpectrumInput', () => {
  test('accepts the documented shape and derives the power', () => {
    const s = parseSpectrumInput(ok)
    expect(s.tests[0]).toEqual({
      id: 't1',
      energyJ: 1,
      durationS: 2,
      averagePowerW: 0.5,
      methods: [{ name: 'com.a.B.m', calls: 1 }],
    })
  })
  test('merges duplicate methods of one test, adding calls, time and energy', () => {
    const s = parseSpectrumInput({
      tests: [
        {
          id: 't',
          energyJ: 1,
          durationS: 1,
          methods: [
            { name: 'a.B.m', calls: 2, energyJ: 0.1 },
            { name: 'a.B.m', calls: 3, energyJ: 0.2, timeS: 1 },
          ],
        },
      ],
    })
    expect(s.tests[0]?.methods).toEqual([{ name: 'a.B.m', calls: 5, energyJ: 0.1 + 0.2, timeS: 1 }])
  })
  const bad: [string, unknown, string, string][] = [
    ['not an object', [1], 'E_CLASSIFY_INVALID_SPECTRUM', '$'],
    ['no tests array', {}, 'E_CLASSIFY_INVALID_SPECTRUM', '$.tests'],
    ['test not an object', { tests: [3] }, 'E_CLASSIFY_INVALID_SPECTRUM', 'tests[0]'],
    [
      'missing id',
      { tests: [{ energyJ: 1, durationS: 1, methods: [] }] },
      'E_CLASSIFY_INVALID_SPECTRUM',
      'tests[0].id',
    ],
    [
      'energy is a string',
      { tests: [{ id: 'a', energyJ: '1', durationS: 1, methods: [] }] },
      'E_CLASSIFY_INVALID_SPECTRUM',
      'tests[0].energyJ',
    ],
    [
      'negative energy',
      { tests: [{ id: 'a', energyJ: -1, durationS: 1, methods: [] }] },
      'E_CLASSIFY_INVALID_SPECTRUM',
      'tests[0].energyJ',
    ],
    [
      'zero duration',
      { tests: [{ id: 'a', energyJ: 1, durationS: 0, methods: [] }] },
      'E_CLASSIFY_INVALID_SPECTRUM',
      'tests[0].durationS',
    ],
    [
      'methods not an array',
      { tests: [{ id: 'a', energyJ: 1, durationS: 1, methods: 'x' }] },
      'E_CLASSIFY_INVALID_SPECTRUM',
      'tests[0].methods',
    ],
    [
      'method object without name',
      { tests: [{ id: 'a', energyJ: 1, durationS: 1, methods: [{ calls: 1 }] }] },
      'E_CLASSIFY_INVALID_SPECTRUM',
      'tests[0].methods[0]',
    ],
    [
      'fractional calls',
      { tests: [{ id: 'a', energyJ: 1, durationS: 1, methods: [{ name: 'a.B.m', calls: 1.5 }] }] },
      'E_CLASSIFY_INVALID_SPECTRUM',
      'tests[0].methods[0].calls',
    ],
    [
      'method without class',
      { tests: [{ id: 'a', energyJ: 1, durationS: 1, methods: ['main'] }] },
      'E_CLASSIFY_INVALID_METHOD_NAME',
      'tests[0].methods[0]',
    ],
    [
      'method object without class',
      { tests: [{ id: 'a', energyJ: 1, durationS: 1, methods: ['a.B.ok', { name: 'x.' }] }] },
      'E_CLASSIFY_INVALID_METHOD_NAME',
      'tests[0].methods[1]',
    ],
    [
      'allMethods entry without class',
      { ...ok, allMethods: ['a.B.c', 'run'] },
      'E_CLASSIFY_INVALID_METHOD_NAME',
      'allMethods[1]',
    ],
    [
      'duplicate id',
      { tests: [ok.tests[0], ok.tests[0]] },
      'E_CLASSIFY_DUPLICATE_TEST',
      'tests[1].id',
    ],
    [
      'knowledge base with a string',
      { ...ok, knowledgeBase: [0.3, 'x'] },
      'E_CLASSIFY_INVALID_SPECTRUM',
      'knowledgeBase[1]',
    ],
    [
      'excessive names an unknown test',
      { ...ok, excessive: ['nope'] },
      'E_CLASSIFY_UNKNOWN_TEST',
      '$.excessive',
    ],
    [
      'repetitions with zero duration',
      { tests: [{ ...ok.tests[0], repetitions: [{ energyJ: 1, durationS: 0 }] }] },
      'E_CLASSIFY_INVALID_SPECTRUM',
      'tests[0].repetitions[0].durationS',
    ],
  ]
  test.each(bad)('%s', (_label, json, code, path) => {
    const e = thrown(() => parseSpectrumInput(json, 'in.json'))
    expect(e.code, 'code').toBe(code)
    expect(e.details.path, 'path').toBe(path)
    expect(e.message, 'names the input').toContain('in.json')
    expect(e.message.match(/\[E_/g)?.length, 'one code in the message').toBe(1)
    expect(e.hint.length, 'hint').toBeGreaterThan(10)
  })
  test('empty test list', () => {
    expect(thrown(() => parseSpectrumInput({ tests: [] })).code).toBe('E_CLASSIFY_EMPTY_SPECTRUM')
  })
})

describe('method names', () => {
  test('owners', () => {
    expect(methodOwner('com.a.B.m')).toEqual({ className: 'com.a.B', packageName: 'com.a' })
    expect(methodOwner('com.a.B$Inner.run(I)V')).toEqual({
      className: 'com.a.B$Inner',
      packageName: 'com.a',
    })
    expect(methodOwner('B.m')).toEqual({ className: 'B', packageName: '' })
  })
  test.each(['m', '.m', 'a.B.', ''])('rejects %j', (name) => {
    expect(thrown(() => methodOwner(name)).code).toBe('E_CLASSIFY_INVALID_METHOD_NAME')
  })
})

describe('error vectors', () => {
  const tests = [
    testSpectrum({
      id: 'a',
      energyJ: 5,
      durationS: 1,
      methods: ['p.C.x'],
      budgetJ: 4,
      repetitionsPowerW: [5, 5.1, 4.9, 5.2, 5.05],
    }),
    testSpectrum({
      id: 'b',
      energyJ: 1,
      durationS: 1,
      methods: ['p.C.y'],
      budgetJ: 2,
      repetitionsPowerW: [1, 1.1, 0.9, 1.05, 0.95],
    }),
    testSpectrum({
      id: 'c',
      energyJ: 1.2,
      durationS: 1,
      methods: ['p.C.y'],
      repetitionsPowerW: [1.2, 1.1, 1.3, 1.15, 1.25],
    }),
  ]
  test('budget: over budget is excessive; no budget never is', () => {
    expect(errorVector(tests, { mode: 'budget' }).excessive).toEqual(['a'])
  })
  test('budget without any budget', () => {
    const e = thrown(() =>
      errorVector([testSpectrum({ id: 'x', energyJ: 1, durationS: 1, methods: [] })], {
        mode: 'budget',
      }),
    )
    expect(e.code).toBe('E_CLASSIFY_NO_BUDGETS')
  })
  test('statistical: significantly above the rest of the suite (one-sided Mann–Whitney)', () => {
    const ev = errorVector(tests, { mode: 'statistical' })
    expect(ev.mode).toBe('statistical')
    expect(ev.excessive).toEqual(['a'])
  })
  test('statistical without repetitions', () => {
    const e = thrown(() =>
      errorVector([testSpectrum({ id: 'x', energyJ: 1, durationS: 1, methods: [] }), ...tests], {
        mode: 'statistical',
      }),
    )
    expect(e.code).toBe('E_CLASSIFY_NEEDS_REPETITIONS')
    expect(e.details.test).toBe('x')
  })
  test('override with an unknown id', () => {
    expect(thrown(() => errorVector(tests, { excessive: ['zzz'] })).code).toBe(
      'E_CLASSIFY_UNKNOWN_TEST',
    )
  })
  test('unknown mode / preset', () => {
    expect(thrown(() => errorVector(tests, { mode: 'nope' as 'budget' })).code).toBe(
      'E_CLASSIFY_UNKNOWN_PRESET',
    )
    expect(thrown(() => classify(tests, { preset: 'nope' as 'couto2014' })).code).toBe(
      'E_CLASSIFY_UNKNOWN_PRESET',
    )
    expect(thrown(() => classify([])).code).toBe('E_CLASSIFY_EMPTY_SPECTRUM')
  })
})

describe('knowledge base file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vitest-energy-kb-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  test('round trip, scoped by app, in a directory that does not exist yet', async () => {
    const path = join(dir, 'nested', 'kb.json')
    await saveKnowledgeBase(path, {
      schemaVersion: 1,
      scope: 'app:com.example',
      averagePowersW: [0.3, 0.4],
    })
    expect(await loadKnowledgeBase(path)).toEqual({
      schemaVersion: 1,
      scope: 'app:com.example',
      averagePowersW: [0.3, 0.4],
    })
  })
  test('missing file', async () => {
    await expect(loadKnowledgeBase(join(dir, 'none.json'))).rejects.toMatchObject({
      code: 'E_CLASSIFY_KB_READ',
    })
  })
  test('unwritable path', async () => {
    writeFileSync(join(dir, 'file'), 'x')
    await expect(
      saveKnowledgeBase(join(dir, 'file', 'kb.json'), {
        schemaVersion: 1,
        scope: 'global',
        averagePowersW: [],
      }),
    ).rejects.toMatchObject({
      code: 'E_CLASSIFY_KB_WRITE',
    })
  })
  test.each([
    ['not JSON', '{'],
    ['an array', '[]'],
    ['wrong version', '{"schemaVersion":2,"scope":"global","averagePowersW":[]}'],
    ['bad scope', '{"schemaVersion":1,"scope":"app:","averagePowersW":[]}'],
    ['no powers', '{"schemaVersion":1,"scope":"global"}'],
    ['negative power', '{"schemaVersion":1,"scope":"global","averagePowersW":[0.1,-1]}'],
  ])('rejects %s', (_label, text) => {
    expect(thrown(() => parseKnowledgeBase(text)).code).toBe('E_CLASSIFY_KB_INVALID')
  })
  test('summary: size, mean and a content hash', () => {
    const s = summarizeKnowledgeBase([0.2, 0.4], 'global')
    expect(s.size).toBe(2)
    expect(s.meanPowerW).toBeCloseTo(0.3, 15)
    expect(s.hash).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(summarizeKnowledgeBase([0.4, 0.2]).hash, 'order matters').not.toBe(s.hash)
    expect(summarizeKnowledgeBase([]).meanPowerW).toBe(0)
  })
})

describe('predicates and hierarchy', () => {
  test('isGreen / isRed work on classified methods and on MethodEnergy-like values', () => {
    expect(isGreen({ color: 'green' })).toBe(true)
    expect(isRed({ color: 'green' })).toBe(false)
    expect(isRed({ color: 'red' })).toBe(true)
    expect(isYellow({ color: 'yellow' })).toBe(true)
    expect(isGreen({}), 'no colour is neither').toBe(false)
    expect(isRed({ color: 'uncolored' })).toBe(false)
  })
  test('package → class → method tree with colours', () => {
    const tests = [
      testSpectrum({
        id: 'hot',
        energyJ: 3,
        durationS: 1,
        methods: ['com.a.Feed.bind', 'com.a.Feed.render', 'Main.run'],
      }),
      testSpectrum({
        id: 'cold',
        energyJ: 1,
        durationS: 1,
        methods: ['com.a.Feed.render', 'com.b.Sync.run', 'Main.run'],
      }),
    ]
    const tree = toHierarchy(classify(tests), 'demo')
    expect(tree).toMatchObject({ kind: 'project', name: 'demo' })
    expect(tree.children.map((p) => [p.name, p.color])).toEqual([
      ['(default)', 'yellow'],
      ['com.a', 'yellow'],
      ['com.b', 'green'],
    ])
    const feed = tree.children[1]
    expect(feed && 'children' in feed ? feed.children[0] : undefined).toMatchObject({
      kind: 'class',
      name: 'Feed',
      color: 'yellow',
      children: [
        { kind: 'method', name: 'bind', fullName: 'com.a.Feed.bind', color: 'red', size: 1 },
        { kind: 'method', name: 'render', color: 'yellow' },
      ],
    })
    expect(JSON.parse(JSON.stringify(tree)), 'JSON-safe').toEqual(tree)
  })
})

describe('spectrumFromResults', () => {
  test('uses net energy, inclusive method energy and skips unmeasured windows', () => {
    const result = measuredResult({
      label: 't',
      window: { clock: 'boottime', startNs: 0, endNs: 2e9 },
      grossEnergyJ: 3,
      baselinePowerW: 0.5,
      methods: [
        methodEnergy({
          method: 'a.B.m',
          attribution: 'interval',
          localEnergyJ: 0.5,
          nonLocalEnergyJ: 0.25,
          asyncEnergyJ: 0,
          calls: 4,
        }),
      ],
      components: [],
      rails: [],
      sources: { power: 'virtual', execution: 'art-trace' },
      warnings: [],
    } as unknown as Parameters<typeof measuredResult>[0])
    const s = spectrumFromResults([
      { id: 't', result },
      {
        id: 'skipped',
        result: { schemaVersion: 1, label: 's', status: 'skipped', reason: 'no device' },
      },
    ])
    expect(s.map((t) => t.id)).toEqual(['t'])
    expect(s[0]?.energyJ, 'net = 3 J − 0.5 W × 2 s').toBeCloseTo(2, 12)
    expect(s[0]?.methods).toEqual([{ name: 'a.B.m', calls: 4, energyJ: 0.75 }])
  })
})

describe('API-level validation', () => {
  test('testSpectrum rejects empty windows and negative energy', () => {
    expect(
      thrown(() => testSpectrum({ id: 'x', energyJ: 1, durationS: 0, methods: [] })).code,
    ).toBe('E_CLASSIFY_INVALID_SPECTRUM')
    expect(
      thrown(() => testSpectrum({ id: 'x', energyJ: -1, durationS: 1, methods: [] })).code,
    ).toBe('E_CLASSIFY_INVALID_SPECTRUM')
    expect(
      thrown(() => testSpectrum({ id: 'x', energyJ: Number.NaN, durationS: 1, methods: [] })).code,
    ).toBe('E_CLASSIFY_INVALID_SPECTRUM')
  })
  test('classify rejects duplicate test ids', () => {
    const t = testSpectrum({ id: 'x', energyJ: 1, durationS: 1, methods: [] })
    expect(thrown(() => classify([t, t])).code).toBe('E_CLASSIFY_DUPLICATE_TEST')
  })
})

describe('spectrumFromResults with repetitions', () => {
  const run = (grossEnergyJ: number, methodJ: number) =>
    measuredResult({
      label: 't',
      window: { clock: 'boottime', startNs: 0, endNs: 1e9 },
      grossEnergyJ,
      baselinePowerW: 1,
      methods: [
        methodEnergy({
          method: 'a.B.m',
          attribution: 'interval',
          localEnergyJ: methodJ,
          nonLocalEnergyJ: 0,
          asyncEnergyJ: 0,
          calls: 2,
        }),
      ],
      components: [],
      rails: [],
      sources: { power: 'virtual', execution: 'art-trace' },
      warnings: [],
    } as unknown as Parameters<typeof measuredResult>[0])
  test('entries with one id become one row with the mean energy and per-repetition powers', () => {
    const [row] = spectrumFromResults([
      { id: 'x', result: run(3, 0.4) },
      { id: 'x', result: run(4, 0.6) },
      { id: 'x', result: run(0.5, 0.2) },
    ])
    // net energies 2, 3 and −0.5 → clamped to 0
    expect(row?.repetitionsPowerW, 'W per repetition').toEqual([2, 3, 0])
    expect(row?.energyJ, 'mean net energy').toBeCloseTo(5 / 3, 12)
    expect(row?.methods[0]?.calls, 'calls summed').toBe(6)
    expect(row?.methods[0]?.energyJ, 'energy averaged').toBeCloseTo(0.4, 12)
  })
})
