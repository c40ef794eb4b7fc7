// Whether dist/ needs tsc, for bin/build.js. tsc's incremental build trusts its build info (an
// output removed from dist/ by hand never comes back) and, with nothing changed, still reads and
// checks the whole program (≈ 4 s that `npm test` and `npm run demo` pay on every run).
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'

/** The folders compiled (tsconfig.build.json's include) and the files that configure the build. */
export const SOURCE_DIRS = ['src', 'reporter', 'matchers']
const CONFIG_FILES = ['package.json', 'tsconfig.json', 'tsconfig.build.json']

/** Every file under `dir` (relative to `root`), depth first. */
function* files(root, dir) {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) yield* files(root, path)
    else yield path
  }
}

/**
 * `{ state: 'missing-output', source }`: a source has no output in dist/ (drop the build info and
 * build everything); `{ state: 'stale' }`: no build info, or an input changed after it (run tsc);
 * `{ state: 'up-to-date' }`: nothing to compile.
 */
export function buildState(root) {
  const info = join(root, 'dist', '.tsbuildinfo')
  if (!existsSync(info)) return { state: 'stale' }
  const builtMs = statSync(info).mtimeMs
  let changed = false
  for (const dir of SOURCE_DIRS) {
    if (!existsSync(join(root, dir))) continue
    for (const path of files(root, dir)) {
      if (/(?<!\.test|\.d)\.ts$/.test(path)) {
        if (!existsSync(join(root, 'dist', path.replace(/\.ts$/, '.js'))))
          return { state: 'missing-output', source: relative(root, join(root, path)) }
      }
      if (statSync(join(root, path)).mtimeMs > builtMs) changed = true
    }
  }
  for (const file of CONFIG_FILES)
    if (existsSync(join(root, file)) && statSync(join(root, file)).mtimeMs > builtMs) changed = true
  return { state: changed ? 'stale' : 'up-to-date' }
}
