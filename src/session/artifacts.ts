/**
 * Raw data of a test's energy windows kept on the host (option `artifacts`): the Perfetto trace,
 * simpleperf samples, ART trace or gauge readings each collector pulled, so a failed energy test
 * can be opened in Perfetto UI, `dmtracedump` or a spreadsheet after the run.
 *
 * While the test runs, `ArtifactStore` holds its raw data in memory up to a limit and spills the
 * rest to a staging folder next to the artifacts, so a test with many big windows keeps them all
 * without holding them in memory; at the end the data is either kept (written or moved into the
 * test's folder) or dropped.
 */
import { copyFile, mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { isAlive } from '../device/index.js'
import { safeSegment, testFolderName } from '../model/index.js'

export interface Artifact {
  /** The window's label (the test name, `energy.measure`'s label, `label #n` for repetitions). */
  readonly window: string
  /** File name the collector gave it, e.g. `power-rails.pftrace`. */
  readonly name: string
  readonly data: Uint8Array | string
}

export { safeSegment, testFolderName }

/** Where a test's artifacts go: `<dir>/<test file>/<test name>-<hash>/`. */
export interface ArtifactPlace {
  /** Absolute. */
  readonly dir: string
  /** Relative to the project root (Vitest's `task.file.name`). */
  readonly testFile: string
  readonly testName: string
}

/**
 * Writes a test's artifacts under `<dir>/<test file>/<test name>-<hash>/` as `<window>.<name>`,
 * replacing what an earlier run left there; returns the folder.
 */
export async function writeArtifacts(
  artifacts: readonly Artifact[],
  where: ArtifactPlace,
): Promise<string> {
  const store = new ArtifactStore(join(where.dir, STAGING), Infinity)
  for (const a of artifacts) store.add(a.window, a.name, a.data)
  return store.keep(where)
}

/** The staging folder's name under the artifacts folder. */
const STAGING = '.staging'

/** An artifact held in memory, or spilled to a file of the staging folder. */
interface Held {
  readonly window: string
  readonly name: string
  data?: Uint8Array | string
  stagedPath?: string
}

/** A test's raw data while it runs: in memory up to `memoryBytes`, the rest in a staging folder. */
export class ArtifactStore {
  private readonly held: Held[] = []
  private heldBytes = 0
  private staging: Promise<string> | undefined
  /** Spills in order; each write's failure is recorded, not thrown. */
  private writes: Promise<void> = Promise.resolve()
  private readonly failures: string[] = []

  /**
   * @param stagingRoot absolute; on the same file system as the artifacts, so kept files move.
   * @param memoryBytes raw data held in memory before spilling. @default 64 MiB
   */
  constructor(
    private readonly stagingRoot: string,
    private readonly memoryBytes = 64 * 2 ** 20,
  ) {}

  /** Takes one artifact (called by collectors while the test runs; never throws). */
  add(window: string, name: string, data: Uint8Array | string): void {
    const bytes = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength
    const entry: Held = { window, name }
    this.held.push(entry)
    if (this.heldBytes + bytes <= this.memoryBytes) {
      entry.data = data
      this.heldBytes += bytes
      return
    }
    const index = this.held.length
    this.writes = this.writes.then(async () => {
      try {
        this.staging ??= mkdir(this.stagingRoot, { recursive: true }).then(() =>
          mkdtemp(join(this.stagingRoot, `${process.pid}-`)),
        )
        const path = join(await this.staging, String(index))
        await writeFile(path, data)
        entry.stagedPath = path
      } catch (error) {
        this.failures.push(`${window} ${name}: ${(error as Error).message}`)
      }
    })
  }

  /** Resolves once everything spilled so far is on disk (or has failed). */
  flush(): Promise<void> {
    return this.writes
  }

  /** How many artifacts the test has handed over. */
  get count(): number {
    return this.held.length
  }

  /**
   * Puts every artifact into the test's folder (replacing an earlier run's) and returns it. Throws
   * after keeping what it could when some could not be written (a full disk), saying which.
   */
  async keep(where: ArtifactPlace): Promise<string> {
    await this.flush()
    const folder = testFolder(where)
    await rm(folder, { recursive: true, force: true })
    await mkdir(folder, { recursive: true })
    const used = new Set<string>()
    const failures = [...this.failures]
    for (const a of this.held) {
      const base = `${safeSegment(a.window)}.${safeSegment(a.name)}`
      let file = base
      for (let n = 2; used.has(file); n++) file = `${base}.${n}`
      used.add(file)
      const target = join(folder, file)
      try {
        if (a.data !== undefined) await writeFile(target, a.data)
        else if (a.stagedPath !== undefined) await moveFile(a.stagedPath, target)
      } catch (error) {
        failures.push(`${file}: ${(error as Error).message}`)
      }
    }
    await this.discard()
    if (failures.length > 0) {
      throw new Error(
        `kept in ${folder} without ${failures.length} file(s): ${failures.slice(0, 3).join('; ')}`,
      )
    }
    return folder
  }

  /**
   * Drops the test's raw data, and what an earlier run kept for the same test (it would read as
   * this run's: the HTML report links a test's folder). Never throws.
   */
  async drop(where: ArtifactPlace): Promise<void> {
    await this.discard()
    await rm(testFolder(where), { recursive: true, force: true }).catch(() => undefined)
  }

  /** Drops whatever was spilled to disk. */
  async discard(): Promise<void> {
    await this.flush()
    const staging = this.staging
    this.staging = undefined
    if (staging !== undefined) {
      await rm(await staging.catch(() => ''), { recursive: true, force: true }).catch(
        () => undefined,
      )
    }
  }
}

/** A test's folder: `<dir>/<test file>/<test name>-<hash>/`. */
function testFolder(where: ArtifactPlace): string {
  const fileParts = where.testFile.split(/[\\/]/).map(safeSegment)
  return join(where.dir, ...fileParts, testFolderName(where.testName))
}

/** rename, or copy and delete across file systems. */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
    await copyFile(from, to)
    await rm(from, { force: true })
  }
}

/**
 * Removes staging folders that no running process owns (a run that was killed), from
 * `<artifacts dir>/.staging/<pid>-…`.
 */
export async function clearStaleStaging(artifactsDir: string): Promise<void> {
  const root = join(artifactsDir, STAGING)
  const entries = await readdir(root).catch(() => [] as string[])
  for (const entry of entries) {
    const pid = Number(entry.split('-')[0])
    if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) continue
    await rm(join(root, entry), { recursive: true, force: true }).catch(() => undefined)
  }
}
