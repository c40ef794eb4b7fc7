// Another runner, in its own process: takes a phone's lease from the Redis store given in argv,
// prints `fence <n>`, then answers `check` (its lease, asked of the store) and `release` on stdin.
// The tests freeze it (SIGSTOP) or kill it (SIGKILL) while it holds the phone.
import { createInterface } from 'node:readline'
import { redisLeaseStore } from '../../src/lab/index.js'
import { isEnergyError } from '../../src/model/index.js'

const [url, ttl, serial] = process.argv.slice(2)
const store = await redisLeaseStore({ url: url ?? '', ttlMs: Number(ttl), run: 'holder' })
const lease = await store.acquire(
  { host: '127.0.0.2', port: 5037, serial: serial ?? 'phone-1' },
  { owner: 'the other runner' },
)
process.stdout.write(`fence ${lease.fence}\n`)
for await (const line of createInterface({ input: process.stdin })) {
  if (line === 'check') {
    try {
      await lease.assertHeld('checking')
      process.stdout.write('held\n')
    } catch (error) {
      process.stdout.write(`${isEnergyError(error) ? error.code : String(error)}\n`)
    }
  } else if (line === 'release') {
    await store.close()
    process.stdout.write('released\n')
    process.exit(0)
  }
}
