/**
 * Raw data of a test's energy windows kept on the host (option `artifacts`): the Perfetto trace,
 * simpleperf samples, ART trace or gauge readings each collector pulled, so a failed energy test
 * can be opened in Perfetto UI, `dmtracedump` or a spreadsheet after the run.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'

export interface Artifact {
  /** The window's label (the test name, `energy.measure`'s label, `label #n` for repetitions). */
  readonly window: string
  /** File name the collector gave it, e.g. `power-rails.pftrace`. */
  readonly name: string
  readonly data: Uint8Array | string
}

/** A path segment from free text: test names hold spaces, quotes and slashes. */
export function safeSegment(text: string): string {
  const cleaned = text
    .replace(/[^\w.-]+/g, '_')
    .replace(/^[._]+|_+$/g, '')
    .slice(0, 100)
  return cleaned === '' ? '_' : cleaned
}

/**
 * Writes a test's artifacts under `<dir>/<test file, relative to root>/<test name>/` as
 * `<window>.<name>`; returns the folder.
 */
export async function writeArtifacts(
  artifacts: readonly Artifact[],
  where: {
    readonly root: string
    readonly dir: string
    readonly testFile: string
    readonly testName: string
  },
): Promise<string> {
  const fileParts = relative(where.root, where.testFile).split(/[\\/]/).map(safeSegment)
  const folder = join(resolve(where.root, where.dir), ...fileParts, safeSegment(where.testName))
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
