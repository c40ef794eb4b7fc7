// What a child run left in a folder (its TMPDIR): every file and folder below it.
import { readdir } from 'node:fs/promises'
import { join } from 'node:path'

/** Every file and folder below `dir`, as relative paths (folders end with `/`). */
export async function listTree(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  const nested = await Promise.all(
    entries.map(async (e) =>
      e.isDirectory()
        ? [`${prefix}${e.name}/`, ...(await listTree(join(dir, e.name), `${prefix}${e.name}/`))]
        : [`${prefix}${e.name}`],
    ),
  )
  return nested.flat()
}
