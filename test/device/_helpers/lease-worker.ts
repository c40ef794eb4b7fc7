/**
 * A separate process contending for a device lease (run with `node --import tsx`).
 * argv: <serial> <dir> <outFile> <iterations> <holdMs> [mode]
 * mode `normal`: print `ready`, wait for `<dir>/go` (a barrier so all workers start together), then
 * acquire/hold/release `iterations` times, appending `<pid> <startNs> <endNs> <waits>` per window.
 * mode `hold-forever`: acquire, print `held`, then sleep until killed.
 * mode `exit-without-release`: acquire, print `held`, exit(0) (the exit hook must release).
 */
import { appendFileSync, existsSync } from 'node:fs'
import { setTimeout as sleep } from 'node:timers/promises'
import { acquireLease } from '../../../src/device/lease.js'

const [serial = 'dev', dir = '', outFile = '', iterations = '1', holdMs = '20', mode = 'normal'] =
  process.argv.slice(2)

const options = {
  dir,
  owner: `worker ${process.pid}`,
  timeoutMs: 60_000,
  pollMs: 10,
  log: () => {},
}

if (mode === 'hold-forever' || mode === 'exit-without-release') {
  const lease = await acquireLease(serial, options)
  process.stdout.write(`held ${lease.path}\n`)
  if (mode === 'exit-without-release') process.exit(0)
  await sleep(600_000)
} else {
  process.stdout.write('ready\n')
  while (!existsSync(`${dir}/go`)) await sleep(2)
  for (let i = 0; i < Number(iterations); i++) {
    let waits = 0
    const lease = await acquireLease(serial, { ...options, onWait: () => waits++ })
    const startNs = process.hrtime.bigint()
    await sleep(Number(holdMs))
    const endNs = process.hrtime.bigint()
    appendFileSync(outFile, `${process.pid} ${startNs} ${endNs} ${waits}\n`)
    await lease.release()
  }
}
