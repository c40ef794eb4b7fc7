// A user's fresh project with this package installed as a user installs it: `npm pack`, then
// `npm install` of the tarball next to the test runner this repository tests with.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { expect } from 'vitest'

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
  // `npm test` built dist/ already (pretest); prepack's build would rewrite it under tests running.
  const { stdout } = await run(
    'npm',
    ['pack', '--pack-destination', work, '--silent', '--ignore-scripts'],
    { cwd: repo },
  )
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

/**
 * Type-checks `lines` (a `typings-check.ts`) in `project` as a user's TypeScript would, and expects
 * no error: strict, NodeNext, `skipLibCheck` (what `tsc --init` writes; webdriverio's own typings
 * need it), with the repository's `tsc`. The file and its tsconfig are removed afterwards.
 */
export async function expectTypeChecks(project: string, lines: readonly string[]): Promise<void> {
  const files = {
    'typings-check.ts': [...lines, ''].join('\n'),
    'tsconfig.json': JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        skipLibCheck: true,
      },
      include: ['*.ts'],
    }),
  }
  for (const [name, text] of Object.entries(files)) await writeFile(join(project, name), text)
  try {
    const tsc = join(repo, 'node_modules/typescript/bin/tsc')
    const result = await run(process.execPath, [tsc, '-p', project], { cwd: project }).then(
      (r) => ({ code: 0, output: r.stdout + r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({
        code: e.code,
        output: e.stdout + e.stderr,
      }),
    )
    expect(result.output).toBe('')
    expect(result.code).toBe(0)
  } finally {
    for (const name of Object.keys(files)) await rm(join(project, name), { force: true })
  }
}
