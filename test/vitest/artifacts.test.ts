// Raw data kept on the host: test names become safe path segments, nothing escapes the folder.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { safeSegment, writeArtifacts } from '../../src/vitest/artifacts.js'

test('test names with quotes, slashes and dots become one safe path segment', () => {
  expect(safeSegment(`it's "the" feed / scroll`)).toBe('it_s_the_feed_scroll')
  expect(safeSegment('../../etc/passwd')).toBe('etc_passwd')
  expect(safeSegment('...')).toBe('_')
  expect(safeSegment('x'.repeat(300))).toHaveLength(100)
})

test('writes each window’s files under <dir>/<test file>/<test name>, never outside it', async () => {
  const root = await mkdtemp(join(tmpdir(), 've-artifacts-'))
  try {
    const folder = await writeArtifacts(
      [
        { window: 'scroll #1', name: 'power-rails.pftrace', data: new Uint8Array([1, 2, 3]) },
        { window: 'scroll #1', name: 'power-rails.pftrace', data: 'again' },
        { window: '../../escape', name: '../x.txt', data: 'text' },
      ],
      {
        root,
        dir: 'artifacts',
        testFile: join(root, 'tests', 'feed.test.ts'),
        testName: `feed > it's "fast"`,
      },
    )
    expect(folder).toBe(join(root, 'artifacts', 'tests', 'feed.test.ts', 'feed_it_s_fast'))
    expect((await readdir(folder)).sort()).toEqual([
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
