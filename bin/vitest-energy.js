#!/usr/bin/env node
// Runs the CLI from the compiled output when installed as a package, or straight from the
// TypeScript sources in a checkout of the repository (so `npx vitest-energy` there needs no build
// step; `npm run demo` builds, as its tests import the compiled package, then runs the compiled CLI,
// which starts ≈ 0.5 s sooner than through tsx).
import { existsSync } from 'node:fs'
import { fileURLToPath, pathToFileURL } from 'node:url'

const source = fileURLToPath(new URL('../src/cli/main.ts', import.meta.url))
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api')
  register()
  await import(pathToFileURL(source).href)
} else {
  await import('../dist/src/cli/main.js')
}
