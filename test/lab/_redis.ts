// A real Redis server for the lab's tests, started on a free loopback port with nothing persisted.
// `.ci/run` installs Debian's redis-server; on a machine without it these tests are skipped, in CI
// they fail (a skipped lab test there would hide a missing install).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'

export const hasRedis = spawnSync('redis-server', ['--version']).status === 0
const inCi =
  process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== '0'
if (!hasRedis && inCi) throw new Error('redis-server is not installed (.ci/run installs it)')

export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, host, () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

export interface RedisServer {
  readonly port: number
  readonly url: string
  /** Stops the server (SIGKILL: nothing saved, as a crash). */
  stop(): Promise<void>
  /** Starts it again on the same port, empty. */
  restart(): Promise<void>
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort()
  let child: ChildProcess | undefined
  const start = async (): Promise<void> => {
    const started = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    )
    child = started
    await new Promise<void>((resolve, reject) => {
      let out = ''
      const timer = setTimeout(
        () => reject(new Error(`redis-server did not start: ${out}`)),
        10_000,
      )
      started.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString()
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer)
          resolve()
        }
      })
      started.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`redis-server exited ${code}: ${out}`))
      })
    })
  }
  const stop = async (): Promise<void> => {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null) return
    await new Promise<void>((resolve) => {
      running.once('exit', () => resolve())
      running.kill('SIGKILL')
    })
  }
  await start()
  return { port, url: `redis://127.0.0.1:${port}`, stop, restart: start }
}
