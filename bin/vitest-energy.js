#!/usr/bin/env node
// Runs the CLI from the compiled output when installed as a package, or straight from the
// TypeScript sources in a checkout of the repository (so `npm run demo` needs no build step).
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
