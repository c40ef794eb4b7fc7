// Raw data kept on the host: test names become safe path segments, nothing escapes the folder.
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { safeSegment, testFolderName, writeArtifacts } from '../../src/vitest/artifacts.js'

test('test names with quotes, slashes, dots and any script become one safe path segment', () => {
  expect(safeSegment(`it's "the" feed / scroll`)).toBe('it_s_the_feed_scroll')
  expect(safeSegment('../../etc/passwd')).toBe('etc_passwd')
  expect(safeSegment('...')).toBe('_')
  expect(safeSegment('x'.repeat(300))).toHaveLength(100)
  expect(safeSegment('フィードを開く')).toBe('フィードを開く')
})

test('names that read alike still get folders of their own', () => {
  expect(testFolderName('a/b')).not.toBe(testFolderName('a b'))
  expect(testFolderName('a/b')).toMatch(/^a_b-[0-9a-f]{8}$/)
})

test('writes each window’s files under <dir>/<test file>/<test name>, never outside it', async () => {
  const root = await mkdtemp(join(tmpdir(), 've-artifacts-'))
  try {
    const old = join(
      root,
      'artifacts',
      'tests',
      'feed.test.ts',
      testFolderName(`feed > it's "fast"`),
    )
    await mkdir(old, { recursive: true })
    await writeFile(join(old, 'stale.txt'), 'from an earlier run')
    const folder = await writeArtifacts(
      [
        { window: 'scroll #1', name: 'power-rails.pftrace', data: new Uint8Array([1, 2, 3]) },
        { window: 'scroll #1', name: 'power-rails.pftrace', data: 'again' },
        { window: '../../escape', name: '../x.txt', data: 'text' },
      ],
      {
        dir: join(root, 'artifacts'),
        testFile: 'tests/feed.test.ts',
        testName: `feed > it's "fast"`,
      },
    )
    expect(folder).toBe(old)
    expect(folder).toMatch(/feed_it_s_fast-[0-9a-f]{8}$/)
    expect((await readdir(folder)).sort(), "an earlier run's files are gone").toEqual([
      'escape.x.txt',
      'scroll_1.power-rails.pftrace',
      'scroll_1.power-rails.pftrace.2',
    ])
    expect([...(await readFile(join(folder, 'scroll_1.power-rails.pftrace')))]).toEqual([1, 2, 3])
    expect(await readdir(root)).toEqual(['artifacts'])
  } finally {
    await rm(root, { recursive: true, force: true })
  }
})
