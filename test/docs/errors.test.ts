// docs/errors.md stays true: every error code the source can throw is documented there.
import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, test } from 'vitest'

const root = fileURLToPath(new URL('../../', import.meta.url))

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true })
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory()
        ? sourceFiles(join(dir, e.name))
        : Promise.resolve(
            e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : [],
          ),
    ),
  )
  return nested.flat()
}

test('every E_ code in src/ is documented in docs/errors.md', async () => {
  const doc = await readFile(join(root, 'docs/errors.md'), 'utf8')
  const codes = new Set<string>()
  for (const file of await sourceFiles(join(root, 'src'))) {
    for (const match of (await readFile(file, 'utf8')).matchAll(/'(E_[A-Z0-9_]+)'/g))
      codes.add(match[1]!)
  }
  expect(codes.size).toBeGreaterThan(100)
  const missing = [...codes].filter((code) => !doc.includes(`\`${code}\``)).sort()
  expect(missing).toEqual([])
})
