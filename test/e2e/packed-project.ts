// A user's fresh project with this package installed as a user installs it: `npm pack`, then
// `npm install` of the tarball next to the test runner this repository tests with.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const repo = fileURLToPath(new URL('../../', import.meta.url))
const run = promisify(execFile)

/**
 * Packs the package into a new temporary folder (`work`) and installs it with `runner` at the
 * version in this repository's node_modules (from the local npm cache when it has it) into
 * `work/project`, a `type: module` package. The caller removes `work`.
 */
export async function packedProject(
  prefix: string,
  runner: 'vitest' | 'jest',
): Promise<{ readonly work: string; readonly project: string }> {
  const work = await mkdtemp(join(tmpdir(), prefix))
  const { stdout } = await run('npm', ['pack', '--pack-destination', work, '--silent'], {
    cwd: repo,
  })
  const tarball = join(work, stdout.trim().split('\n').pop()!)
  const project = join(work, 'project')
  await mkdir(project)
  await writeFile(
    join(project, 'package.json'),
    JSON.stringify({ name: 'my-app-tests', private: true, type: 'module' }),
  )
  const { version } = JSON.parse(
    await readFile(join(repo, 'node_modules', runner, 'package.json'), 'utf8'),
  ) as { version: string }
  await run(
    'npm',
    [
      'install',
      '--save-dev',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      `${runner}@${version}`,
      tarball,
    ],
    { cwd: project, timeout: 300_000 },
  )
  return { work, project }
}
