/** Runs the real `vitest-energy` executable (bin/vitest-energy.js: the sources through tsx in a checkout). */
import { spawnSync } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

export const REPO = fileURLToPath(new URL('../../', import.meta.url))
const BIN = fileURLToPath(new URL('../../bin/vitest-energy.js', import.meta.url))

export function runBin(args: readonly string[], cwd = REPO) {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    cwd,
    encoding: 'utf8',
    // TSX_DISABLE_CACHE: tsx would keep its compile cache in $TMPDIR/tsx-<uid> after the run.
    env: { ...process.env, NO_COLOR: '1', TSX_DISABLE_CACHE: '1' },
    timeout: 30_000,
  })
  return { code: r.status, out: r.stdout, err: r.stderr }
}

/** A loopback port nothing listens on (bound, then released). */
export async function deadPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === 'string') throw new Error('no port')
  return address.port
}
