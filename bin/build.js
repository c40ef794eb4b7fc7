#!/usr/bin/env node
// The package's build (`npm run build`): tsc into dist/ when a source changed (bin/build-state.js),
// then the non-TypeScript files the compiled package reads at run time (power profiles, app
// models), so dist/ works on its own.
import { spawnSync } from 'node:child_process'
import { cpSync, existsSync, rmSync, utimesSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { buildState } from './build-state.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const info = join(root, 'dist', '.tsbuildinfo')
const found = buildState(root)
if (found.state === 'missing-output') {
  console.log(`build: ${found.source} has no output in dist/; building everything`)
  rmSync(info)
}
if (found.state !== 'up-to-date') {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc')
  const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: 'inherit',
  })
  if (compiled.status !== 0) process.exit(compiled.status ?? 1)
  // tsc leaves its build info as it was when no output changed: mark this build's time.
  if (existsSync(info)) utimesSync(info, new Date(), new Date())
}
for (const dir of ['src/virtual-device/profiles', 'src/virtual-device/sim/models']) {
  if (existsSync(join(root, dir)))
    cpSync(join(root, dir), join(root, 'dist', dir), { recursive: true })
}
