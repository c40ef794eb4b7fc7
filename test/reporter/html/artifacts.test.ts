// The HTML report finds the raw data the fixture kept (src/session/artifacts.ts writes it; the
// reporter may not import that module, so this checks the two agree on where it goes).
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { findArtifacts } from '../../../reporter/html/index.js'
import { writeArtifacts } from '../../../src/session/artifacts.js'

describe('findArtifacts', () => {
  let dir = ''
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'vitest-energy-html-artifacts-'))
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  test('links each test to the files the fixture kept for it, relative to the HTML file', async () => {
    const artifactsDir = join(dir, '.vitest-energy', 'artifacts')
    const tests = [
      { file: 'test/ui/feed.test.ts', name: 'feed > opening the feed: 100% <fast>' },
      { file: 'test/ui/feed.test.ts', name: 'feed > opening the feed: 100% <slow>' },
      { file: 'test/ui/sync.test.ts', name: 'nothing kept' },
      { file: 'test/ui/other.test.ts', name: 'feed > opening the feed: 100% <fast>' },
    ]
    for (const t of tests.slice(0, 2))
      await writeArtifacts(
        [
          { window: t.name, name: 'power-rails.pftrace', data: new Uint8Array(10) },
          { window: 'idle baseline', name: 'fuel-gauge.csv', data: 't,W\n' },
        ],
        { dir: artifactsDir, testFile: t.file, testName: t.name },
      )
    const htmlDir = join(dir, '.vitest-energy', 'report')
    const found = findArtifacts(tests, artifactsDir, htmlDir)
    expect([...found.keys()]).toEqual([0, 1])
    const first = found.get(0) ?? []
    expect(first.map((a) => [a.name, a.bytes])).toEqual([
      ['feed_opening_the_feed_100_fast.power-rails.pftrace', 10],
      ['idle_baseline.fuel-gauge.csv', 4],
    ])
    for (const a of first) {
      expect(a.href).toMatch(/^\.\.\/artifacts\/test\/ui\/feed\.test\.ts\//)
      expect(existsSync(resolve(htmlDir, decodeURIComponent(a.href))), a.href).toBe(true)
    }
    expect(found.get(1)?.[0]?.href).not.toBe(first[0]?.href)
  })

  test('no artifacts folder: nothing found, nothing thrown', () => {
    expect(findArtifacts([{ file: 'a.test.ts', name: 'a' }], join(dir, 'missing'), dir).size).toBe(
      0,
    )
  })
})
