/**
 * Raw data of a test's energy windows kept on the host (option `artifacts`): the Perfetto trace,
 * simpleperf samples, ART trace or gauge readings each collector pulled, so a failed energy test
 * can be opened in Perfetto UI, `dmtracedump` or a spreadsheet after the run.
 */
import { createHash } from 'node:crypto'
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

export interface Artifact {
  /** The window's label (the test name, `energy.measure`'s label, `label #n` for repetitions). */
  readonly window: string
  /** File name the collector gave it, e.g. `power-rails.pftrace`. */
  readonly name: string
  readonly data: Uint8Array | string
}

/** A path segment from free text: test names hold spaces, quotes, slashes and any script. */
export function safeSegment(text: string): string {
  const cleaned = text
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}_.-]+/gu, '_')
    .replace(/^[._]+|_+$/g, '')
    .slice(0, 100)
  return cleaned === '' ? '_' : cleaned
}

/** A test's folder name: readable, plus a short hash of the full name so that no two collide. */
export function testFolderName(testName: string): string {
  const hash = createHash('sha256').update(testName).digest('hex').slice(0, 8)
  return `${safeSegment(testName)}-${hash}`
}

/**
 * Writes a test's artifacts under `<dir>/<test file>/<test name>-<hash>/` as `<window>.<name>`,
 * replacing what an earlier run left there; returns the folder.
 * @param where.dir absolute; `testFile` relative to the project root (Vitest's `task.file.name`).
 */
export async function writeArtifacts(
  artifacts: readonly Artifact[],
  where: {
    readonly dir: string
    readonly testFile: string
    readonly testName: string
  },
): Promise<string> {
  const fileParts = where.testFile.split(/[\\/]/).map(safeSegment)
  const folder = join(where.dir, ...fileParts, testFolderName(where.testName))
  await rm(folder, { recursive: true, force: true })
  await mkdir(folder, { recursive: true })
  const used = new Set<string>()
  for (const a of artifacts) {
    const base = `${safeSegment(a.window)}.${safeSegment(a.name)}`
    let file = base
    for (let n = 2; used.has(file); n++) file = `${base}.${n}`
    used.add(file)
    await writeFile(join(folder, file), a.data)
  }
  return folder
}
