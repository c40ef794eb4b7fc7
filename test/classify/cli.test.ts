/** `vitest-energy classify` through runCommand, on the Table 5 fixtures. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { runCommand } from '../../src/cli/index.js'

const fixtures = fileURLToPath(new URL('../fixtures/classify/', import.meta.url))

async function run(
  args: string[],
  cwd = fixtures,
): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await runCommand(['classify', ...args], {
    out: (t) => (out += t),
    err: (t) => (err += t),
    cwd,
    signal: new AbortController().signal,
  })
  return { code, out, err }
}

const golden = (name: string) => readFileSync(join(fixtures, name), 'utf8')

describe('vitest-energy classify', () => {
  test('JSON output has the issue 8 shape and matches the golden file', async () => {
    const r = await run(['couto-table5-text.json'])
    expect(r.code, r.err).toBe(0)
    const json = JSON.parse(r.out)
    expect(json.threshold, 'threshold (W)').toBeCloseTo(0.8, 12)
    expect(json.excessive).toEqual(['test1', 'test4', 'test10', 'test19'])
    expect(json.methods.map((m: { name: string; color: string }) => [m.name, m.color])).toEqual([
      ['com.app1.Main.methodA', 'green'],
      ['com.app1.Main.methodB', 'red'],
      ['com.app1.Main.methodC', 'yellow'],
      ['com.app1.Other.neverCalled', 'uncolored'],
    ])
    for (const key of [
      'name',
      'n11',
      'n10',
      'n01',
      'n00',
      'p',
      'color',
      'ochiai',
      'tarantula',
      'jaccard',
      'dstar',
    ]) {
      expect(json.methods[0], `method field ${key}`).toHaveProperty(key)
    }
    expect(json.classes).toEqual([
      { name: 'com.app1.Main', color: 'yellow', members: 3 },
      { name: 'com.app1.Other', color: 'uncolored', members: 1 },
    ])
    expect(json.packages).toEqual([{ name: 'com.app1', color: 'yellow', members: 2 }])
    expect(r.out).toBe(golden('couto-table5-text.expected.json'))
  })
  test('greendroid-code preset as a table', async () => {
    const r = await run([
      'couto-table5-table.json',
      '--preset',
      'greendroid-code',
      '--format',
      'table',
    ])
    expect(r.code, r.err).toBe(0)
    expect(r.out).toContain('preset greendroid-code, error vector couto2014, threshold 800.0000 mW')
    expect(r.out).toMatch(/^red\s+3\s+1\s+0\.750\s.*com\.app1\.Main\.methodB$/m)
    expect(r.out).toBe(golden('couto-table5-table.greendroid.expected.txt'))
  })
  test('hierarchy output for a sunburst', async () => {
    const r = await run(['couto-table5-text.json', '--format', 'hierarchy'])
    const tree = JSON.parse(r.out)
    expect(tree.children[0].name).toBe('com.app1')
    expect(tree.children[0].children.map((c: { name: string }) => c.name)).toEqual([
      'Main',
      'Other',
    ])
  })
  test('usage errors exit 2 and print the usage', async () => {
    for (const args of [
      [],
      ['a.json', 'b.json'],
      ['x.json', '--preset', 'nope'],
      ['x.json', '--format', 'xml'],
      ['x.json', '--error-vector', 'x'],
      ['x.json', '--alpha', '2'],
      ['x.json', '--update-knowledge-base'],
      ['x.json', '--scope', 'app:x'],
      ['x.json', '--knowledge-base', 'k.json', '--scope', 'mine'],
      ['x.json', '--bogus'],
    ]) {
      const r = await run(args)
      expect(r.code, args.join(' ')).toBe(2)
      expect(r.err, args.join(' ')).toContain('E_CLI_USAGE')
      expect(r.err).toContain('Usage: vitest-energy classify')
    }
  })
  describe('input and knowledge-base files', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vitest-energy-cli-'))
    afterAll(() => rmSync(dir, { recursive: true, force: true }))
    test('missing file, bad JSON, bad shape exit 1 with the code', async () => {
      writeFileSync(join(dir, 'bad.json'), '{"tests": [')
      writeFileSync(
        join(dir, 'shape.json'),
        '{"tests": [{"id": "a", "energyJ": 1, "durationS": 0, "methods": []}]}',
      )
      for (const [file, pattern] of [
        ['none.json', /E_CLASSIFY_INVALID_SPECTRUM.*cannot read/],
        ['bad.json', /E_CLASSIFY_INVALID_SPECTRUM.*not valid JSON/],
        ['shape.json', /E_CLASSIFY_INVALID_SPECTRUM.*tests\[0\]\.durationS/],
      ] as const) {
        const r = await run([file], dir)
        expect(r.code, file).toBe(1)
        expect(r.err, file).toMatch(pattern)
      }
    })
    test('--update-knowledge-base creates the file, and the next run uses it', async () => {
      const kb = join(dir, 'kb', 'global.json')
      const first = await run(
        [
          join(fixtures, 'couto-table5-text.json'),
          '--knowledge-base',
          kb,
          '--update-knowledge-base',
        ],
        dir,
      )
      expect(first.code, first.err).toBe(0)
      expect(JSON.parse(first.out).knowledgeBase.size, 'empty before the first run').toBe(0)
      const stored = JSON.parse(readFileSync(kb, 'utf8'))
      expect(stored.averagePowersW.length, 'first run stored').toBe(20)
      const second = await run(
        [join(fixtures, 'couto-table5-text.json'), '--knowledge-base', kb],
        dir,
      )
      const json = JSON.parse(second.out)
      expect(json.knowledgeBase.size, 'second run sees 20 earlier tests').toBe(20)
      expect(json.threshold, 'same mean').toBeCloseTo(0.8, 12)
      const wrongScope = await run(
        [
          join(fixtures, 'couto-table5-text.json'),
          '--knowledge-base',
          kb,
          '--scope',
          'app:com.other',
        ],
        dir,
      )
      expect(wrongScope.code, 'scope mismatch').toBe(2)
      expect(wrongScope.err).toContain('has scope global, not app:com.other')
      const appKb = join(dir, 'kb', 'app.json')
      const scoped = await run(
        [
          join(fixtures, 'couto-table5-text.json'),
          '--knowledge-base',
          appKb,
          '--scope',
          'app:com.app1',
          '--update-knowledge-base',
        ],
        dir,
      )
      expect(scoped.code, scoped.err).toBe(0)
      expect(JSON.parse(readFileSync(appKb, 'utf8')).scope, 'new file gets the scope').toBe(
        'app:com.app1',
      )
      const missing = await run(
        [join(fixtures, 'couto-table5-text.json'), '--knowledge-base', join(dir, 'nope.json')],
        dir,
      )
      expect(missing.code).toBe(1)
      expect(missing.err).toContain('E_CLASSIFY_KB_READ')
    })
  })
})
