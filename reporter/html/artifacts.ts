/**
 * Finds the raw data the `energy` fixture kept for each test (plugin option `artifacts`), so the
 * HTML report can link to it. The fixture writes a test's files to
 * `<artifactsDir>/<test file, each segment made safe>/<test name made safe>-<8 hex of sha256(name)>/`
 * (`testFolderName` of src/model, which both use); the folder is found by its hash suffix.
 */
import { readdirSync, statSync } from 'node:fs'
import { join, relative, sep } from 'node:path'
import { safeSegment, testFolderSuffix } from '../../src/model/index.js'
import type { HtmlArtifact } from './data.js'

/**
 * Kept files per test index, with links relative to `htmlDir`. Reads the folder of each tested
 * file once; a missing or unreadable folder means no artifacts.
 */
export function findArtifacts(
  tests: ReadonlyArray<{ readonly file: string; readonly name: string }>,
  artifactsDir: string,
  htmlDir: string,
): Map<number, HtmlArtifact[]> {
  const found = new Map<number, HtmlArtifact[]>()
  const folders = new Map<string, readonly string[]>()
  tests.forEach((test, index) => {
    const fileDir = join(artifactsDir, ...test.file.split(/[\\/]/).map(safeSegment))
    let names = folders.get(fileDir)
    if (names === undefined) {
      names = list(fileDir)
      folders.set(fileDir, names)
    }
    const suffix = testFolderSuffix(test.name)
    const folder = names.find((n) => n.endsWith(suffix))
    if (folder === undefined) return
    const dir = join(fileDir, folder)
    const files = list(dir).flatMap((name) => {
      try {
        const stat = statSync(join(dir, name))
        return stat.isFile()
          ? [{ name, href: href(relative(htmlDir, join(dir, name))), bytes: stat.size }]
          : []
      } catch {
        return []
      }
    })
    if (files.length > 0) found.set(index, files)
  })
  return found
}

function list(dir: string): string[] {
  try {
    return readdirSync(dir).sort()
  } catch {
    return []
  }
}

/** A relative URL: each segment percent-encoded, starting with `./` or `../` (never a scheme). */
function href(path: string): string {
  const url = path.split(sep).map(encodeURIComponent).join('/')
  return url.startsWith('../') ? url : `./${url}`
}
