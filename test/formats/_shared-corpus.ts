/**
 * The shared corpus next to the repository (`../shared/corpus`, see its PROVENANCE.md): newer real
 * files than `test/fixtures/corpus`. Tests over it skip with a notice when it is absent (a clone of
 * the repository alone). Used by the perfetto, meter, dumpsys, power-profile and hierarchy tests.
 */
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '../../../shared/corpus')

/** The folder's path and its file names, or `undefined` (with a printed notice) when absent. */
export function sharedCorpus(
  folder: string,
): { readonly dir: string; readonly files: readonly string[] } | undefined {
  const dir = join(ROOT, folder)
  if (!existsSync(dir)) {
    console.warn(`[skipped] ${dir} not found: tests over the shared corpus skipped`)
    return undefined
  }
  return { dir, files: readdirSync(dir).sort() }
}
