/**
 * `npm run bench`: runs every benchmark script in turn, each in its own process so one's memory
 * and JIT state do not colour the next. Figures go in docs/benchmarks.md with the command used.
 */
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const benches = [
  'virtual-device',
  'art-trace',
  'attribution',
  'reporter',
  'power-formats',
  'appium-driver',
  'accuracy',
  'fixture-overhead',
  'user-project',
  'lab',
]
let failed = 0
for (const name of benches) {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url))
  if (!existsSync(file)) {
    console.log(`== ${name}: not present in this build, skipped`)
    continue
  }
  console.log(`== ${name}`)
  const run = spawnSync(process.execPath, ['--import', 'tsx', file, ...process.argv.slice(2)], {
    stdio: 'inherit',
  })
  if (run.status !== 0) failed++
}
process.exitCode = failed > 0 ? 1 : 0
