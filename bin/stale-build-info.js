#!/usr/bin/env node
// The build is incremental (tsconfig.build.json: dist/.tsbuildinfo), and tsc trusts its build info:
// an output removed from dist/ by hand would never come back. Run before tsc, this drops the build
// info when any source's output is missing, so that tsc builds everything again.
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const info = join(root, 'dist', '.tsbuildinfo')

/** The TypeScript sources tsconfig.build.json compiles (tests left out), relative to the root. */
function* sources(dir) {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* sources(path)
    else if (/(?<!\.test|\.d)\.ts$/.test(entry.name)) yield path
  }
}

if (existsSync(info)) {
  for (const dir of ['src', 'reporter', 'matchers']) {
    for (const source of sources(dir)) {
      if (!existsSync(join(root, 'dist', source.replace(/\.ts$/, '.js')))) {
        console.log(`build: ${relative(root, source)} has no output in dist/; building everything`)
        rmSync(info)
        process.exit(0)
      }
    }
  }
}
