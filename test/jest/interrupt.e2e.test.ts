// Ctrl-C in the middle of a Jest run leaves nothing behind and nothing running: Jest sets no
// SIGINT handler, so the vitest-energy global setup's removes the run's folder and the phone
// locks of the workers the signal killed mid-test, and ends the process (Appium's temporary home
// and the reporter's side files go with its exit). The run gets a TMPDIR of its own and its own
// process group, as a terminal's Ctrl-C reaches it.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { afterAll, expect, test } from 'vitest'
import { jestBin, listTree, repo } from './_jest.js'

const hasBuild = existsSync(join(repo, 'dist/src/public/jest-environment.js'))
// Inside the repository, so that `vitest-energy/…` resolves to this package (dist/).
const project = join(repo, 'test/.scratch/jest-interrupt')

afterAll(async () => {
  await rm(project, { recursive: true, force: true })
})

/** True while any process of the group is alive. */
function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0)
    return true
  } catch {
    return false
  }
}

test.skipIf(!hasBuild)(
  'Ctrl-C while two workers hold their phones removes their locks, the run folder, Appium’s home and the side files',
  async () => {
    await mkdir(project, { recursive: true })
    await writeFile(
      join(project, 'jest.config.js'),
      [
        'export default {',
        "  testEnvironment: 'vitest-energy/jest-environment',",
        "  testEnvironmentOptions: { app: 'com.example.trails', baseline: 'none', virtualDevice: { devices: 2 } },",
        "  globalSetup: 'vitest-energy/jest-global-setup',",
        "  globalTeardown: 'vitest-energy/jest-global-teardown',",
        "  reporters: ['default', 'vitest-energy/jest-reporter'],",
        '}',
        '',
      ].join('\n'),
    )
    for (const name of ['a', 'b']) {
      await writeFile(
        join(project, `${name}.test.js`),
        [
          `test('a long test ${name}', async () => {`,
          '  await energy.measure(() => new Promise((r) => setTimeout(r, 30_000)))',
          '})',
          '',
        ].join('\n'),
      )
    }
    const tmp = await mkdtemp(join(tmpdir(), 'vitest-energy-jest-interrupt-'))
    const cache = await mkdtemp(join(tmpdir(), 'vitest-energy-jest-cache-'))
    try {
      const child = spawn(
        process.execPath,
        ['--experimental-vm-modules', jestBin, '--maxWorkers=2', `--cacheDirectory=${cache}`],
        {
          cwd: project,
          env: { ...process.env, TMPDIR: tmp, NO_COLOR: '1', JEST_WORKER_ID: '' },
          detached: true, // its own process group
          stdio: 'ignore',
        },
      )
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
      // Wait until both tests hold their phones: two lock files.
      const locks = async (): Promise<number> =>
        (await listTree(tmp)).filter((p) => p.endsWith('.lock')).length
      const deadline = Date.now() + 90_000
      while ((await locks()) < 2 && Date.now() < deadline) await sleep(100)
      const during = await listTree(tmp)
      expect(await locks(), during.join('\n')).toBe(2)
      expect(during.some((p) => p.startsWith('vitest-energy-run-'))).toBe(true)
      expect(during.some((p) => p.startsWith('vitest-energy-jest-'))).toBe(true)
      expect(during.some((p) => p.startsWith('vitest-energy-appium-'))).toBe(true)
      await sleep(500) // into the windows
      process.kill(-child.pid!, 'SIGINT')
      await Promise.race([exited, sleep(30_000)])
      expect(child.exitCode ?? child.signalCode, 'Jest exited').not.toBeNull()
      // Workers and Appium's children too: nothing of the run's process group is left.
      const gone = Date.now() + 10_000
      while (groupAlive(child.pid!) && Date.now() < gone) await sleep(100)
      expect(groupAlive(child.pid!), 'a process of the run is still alive').toBe(false)
      // The lease folder, shared by every run on the host, may stay; nothing in it may.
      expect(await listTree(tmp)).toEqual(['vitest-energy/', 'vitest-energy/leases/'])
    } finally {
      await rm(tmp, { recursive: true, force: true })
      await rm(cache, { recursive: true, force: true })
    }
  },
  180_000,
)
