// Ctrl-C in the middle of a test leaves nothing behind: Vitest exits a millisecond after SIGINT,
// without the global teardown, so the run's folder, the workers' phone locks and Appium's
// temporary home are removed on the main process's exit. The child gets a TMPDIR of its own, so
// whatever the run leaves there is seen.
import { spawn } from 'node:child_process'
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, test } from 'vitest'

const repo = fileURLToPath(new URL('../../', import.meta.url))
const project = join(repo, 'test/.scratch/interrupt')
const vitestBin = join(repo, 'node_modules/vitest/vitest.mjs')

async function tree(dir: string, prefix = ''): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => [])
  const nested = await Promise.all(
    entries.map(async (e) =>
      e.isDirectory()
        ? [`${prefix}${e.name}/`, ...(await tree(join(dir, e.name), `${prefix}${e.name}/`))]
        : [`${prefix}${e.name}`],
    ),
  )
  return nested.flat()
}

afterAll(async () => {
  await rm(project, { recursive: true, force: true })
})

test('Ctrl-C while a test holds the phone removes its lock, the run folder and Appium’s home', async () => {
  await mkdir(project, { recursive: true })
  await writeFile(
    join(project, 'vitest.config.ts'),
    [
      "import { defineConfig } from 'vitest/config'",
      "import { energy } from 'vitest-energy/plugin'",
      "export default defineConfig({ plugins: [energy({ app: 'com.example.trails', baseline: 'none' })] })",
      '',
    ].join('\n'),
  )
  await writeFile(
    join(project, 'long.test.ts'),
    [
      "import { test } from 'vitest-energy'",
      "test('a long test', async ({ energy }) => {",
      '  await energy.measure(() => new Promise((r) => setTimeout(r, 30_000)))',
      '})',
      '',
    ].join('\n'),
  )
  const tmp = await mkdtemp(join(tmpdir(), 'vitest-energy-interrupt-'))
  try {
    const child = spawn(process.execPath, [vitestBin, 'run', '--reporter=energy'], {
      cwd: project,
      env: { ...process.env, TMPDIR: tmp, NO_COLOR: '1', CI: '1' },
      detached: true, // its own process group, as a terminal's Ctrl-C reaches it
      stdio: 'ignore',
    })
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    // Wait until the test holds its phone: the lock file is there.
    const deadline = Date.now() + 60_000
    while (!(await tree(tmp)).some((p) => p.endsWith('.lock')) && Date.now() < deadline) {
      await sleep(100)
    }
    const during = await tree(tmp)
    expect(
      during.some((p) => p.endsWith('.lock')),
      during.join('\n'),
    ).toBe(true)
    expect(during.some((p) => p.startsWith('vitest-energy-run-'))).toBe(true)
    await sleep(500) // into the window
    process.kill(-child.pid!, 'SIGINT')
    await Promise.race([exited, sleep(30_000)])
    expect(child.exitCode ?? child.signalCode, 'the run exited').not.toBeNull()
    const after = await tree(tmp)
    // The lease folder, shared by every run on the host, may stay; nothing in it may. (Vitest's
    // own module cache, `<random>/ssr/`, is Vitest's to remove and is not looked at.)
    expect(after.filter((p) => p.startsWith('vitest-energy/'))).toEqual([
      'vitest-energy/',
      'vitest-energy/leases/',
    ])
    expect(after.filter((p) => p.startsWith('vitest-energy-'))).toEqual([])
  } finally {
    await rm(tmp, { recursive: true, force: true })
  }
}, 120_000)
