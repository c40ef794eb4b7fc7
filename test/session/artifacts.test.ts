// Raw data kept on the host: test names become safe path segments, nothing escapes the folder.
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  ArtifactStore,
  clearStaleStaging,
  safeSegment,
  testFolderName,
  writeArtifacts,
} from '../../src/session/artifacts.js'

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

describe('ArtifactStore: what does not fit in memory waits in a staging folder', () => {
  async function withRoot(fn: (root: string) => Promise<void>): Promise<void> {
    const root = await mkdtemp(join(tmpdir(), 've-store-'))
    try {
      await fn(root)
    } finally {
      await rm(root, { recursive: true, force: true })
    }
  }
  const place = (root: string) => ({
    dir: join(root, 'artifacts'),
    testFile: 'feed.test.ts',
    testName: 'scrolls',
  })

  test('beyond the memory limit artifacts are spilled, and all of them end up in the test folder', () =>
    withRoot(async (root) => {
      const staging = join(root, 'artifacts', '.staging')
      const store = new ArtifactStore(staging, 10)
      store.add('w #1', 'power-rails.pftrace', new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]))
      store.add('w #2', 'power-rails.pftrace', new Uint8Array([9, 9, 9, 9, 9, 9, 9, 9]))
      store.add('w #2', 'simpleperf-report-sample.txt', 'sample text')
      expect(store.count).toBe(3)
      await store.flush()
      // Two of the three went to disk (8 + 8 > 10 bytes; 'sample text' alone is 11).
      const spilled = await readdir(staging)
      expect(spilled).toHaveLength(1)
      expect((await readdir(join(staging, spilled[0]!))).sort()).toEqual(['2', '3'])
      const folder = await store.keep(place(root))
      expect((await readdir(folder)).sort()).toEqual([
        'w_1.power-rails.pftrace',
        'w_2.power-rails.pftrace',
        'w_2.simpleperf-report-sample.txt',
      ])
      expect([...(await readFile(join(folder, 'w_2.power-rails.pftrace')))]).toEqual([
        9, 9, 9, 9, 9, 9, 9, 9,
      ])
      expect(await readFile(join(folder, 'w_2.simpleperf-report-sample.txt'), 'utf8')).toBe(
        'sample text',
      )
      expect(await readdir(staging), 'staging emptied').toEqual([])
    }))

  test('discard drops what was spilled; nothing reaches the artifacts folder', () =>
    withRoot(async (root) => {
      const staging = join(root, 'artifacts', '.staging')
      const store = new ArtifactStore(staging, 0)
      store.add('w', 'a.txt', 'x')
      await store.discard()
      expect(await readdir(staging)).toEqual([])
      expect(await readdir(join(root, 'artifacts'))).toEqual(['.staging'])
    }))

  test('drop removes what an earlier run kept for the same test, and no other test’s', () =>
    withRoot(async (root) => {
      const staging = join(root, 'artifacts', '.staging')
      const failedBefore = new ArtifactStore(staging, 100)
      failedBefore.add('w', 'power.pftrace', 'old')
      const folder = await failedBefore.keep(place(root))
      const other = new ArtifactStore(staging, 100)
      other.add('w', 'power.pftrace', 'other')
      const otherFolder = await other.keep({ ...place(root), testName: 'refreshes' })
      // The same test passes in the next run: its old raw data would read as this run's.
      const passed = new ArtifactStore(staging, 100)
      passed.add('w', 'power.pftrace', 'new')
      await passed.drop(place(root))
      expect(existsSync(folder)).toBe(false)
      expect(await readdir(otherFolder)).toEqual(['w.power.pftrace'])
      // Nothing kept before: nothing to remove, no error.
      await new ArtifactStore(staging, 100).drop({ ...place(root), testName: 'never kept' })
    }))

  test('a staging folder that cannot be written: the rest is kept and the error says what is missing', () =>
    withRoot(async (root) => {
      const blocked = join(root, 'not-a-folder')
      await writeFile(blocked, 'a file where the staging folder should be')
      const store = new ArtifactStore(join(blocked, '.staging'), 4)
      store.add('w', 'small.txt', 'abc')
      store.add('w', 'big.bin', new Uint8Array(100))
      await expect(store.keep(place(root))).rejects.toThrow(/without 1 file\(s\): w big\.bin/)
      const folder = join(root, 'artifacts', 'feed.test.ts', testFolderName('scrolls'))
      expect(await readdir(folder)).toEqual(['w.small.txt'])
    }))

  test('clearStaleStaging removes folders of processes that are gone, not of running ones', () =>
    withRoot(async (root) => {
      const staging = join(root, '.staging')
      await mkdir(join(staging, `${process.pid}-live`), { recursive: true })
      // pid 2^22 + 1 is above Linux's pid_max limit: never a running process.
      await mkdir(join(staging, `${2 ** 22 + 1}-dead`), { recursive: true })
      await mkdir(join(staging, 'junk'), { recursive: true })
      await clearStaleStaging(root)
      expect(await readdir(staging)).toEqual([`${process.pid}-live`])
      await clearStaleStaging(join(root, 'missing')) // no staging folder: nothing to do
    }))
})
