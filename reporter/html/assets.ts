/**
 * The code the HTML report inlines, read from disk once per process: uPlot (time series) and
 * d3-hierarchy (partition and treemap layouts) from their published builds in node_modules, and
 * the page's own script, `client/app.ts`. The published package runs the `app.js` that `tsc`
 * compiled next to this module; from a source checkout (tests, benchmarks under tsx) the script is
 * transpiled with the TypeScript compiler, a devDependency there, and cached by content.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import type * as TypeScript from 'typescript'

export interface HtmlAssets {
  /** `uPlot.iife.min.js`: defines the global `uPlot`. */
  readonly uplotJs: string
  readonly uplotCss: string
  /** `d3-hierarchy.min.js` (UMD): defines the global `d3`. */
  readonly d3HierarchyJs: string
  /** The page's script, an ES module. */
  readonly appJs: string
}

let loaded: HtmlAssets | undefined

/** Reads (once) what the page inlines. Throws when a library is not installed. */
export function htmlAssets(): HtmlAssets {
  loaded ??= readAssets()
  return loaded
}

function readAssets(): HtmlAssets {
  const require = createRequire(import.meta.url)
  // Both packages' `exports` hide their dist folders; resolve the entry point and look beside it.
  const uplotDist = dirname(require.resolve('uplot'))
  const d3Dist = dirname(require.resolve('d3-hierarchy'))
  return {
    uplotJs: licensed(uplotDist, readFileSync(join(uplotDist, 'uPlot.iife.min.js'), 'utf8')),
    uplotCss: readFileSync(join(uplotDist, 'uPlot.min.css'), 'utf8'),
    d3HierarchyJs: licensed(d3Dist, readFileSync(join(d3Dist, 'd3-hierarchy.min.js'), 'utf8')),
    appJs: appScript(require),
  }
}

/** The package's licence (MIT, ISC: keep the notice with every copy) as a comment before its code. */
function licensed(dist: string, code: string): string {
  const license = readFileSync(join(dist, '..', 'LICENSE'), 'utf8').replace(/\*\//g, '* /')
  return `/*!\n${license.trim()}\n*/\n${code}`
}

function appScript(require: NodeJS.Require): string {
  const here = dirname(fileURLToPath(import.meta.url))
  const compiled = join(here, 'client', 'app.js')
  if (existsSync(compiled)) return readFileSync(compiled, 'utf8')
  // A source checkout: transpile, and keep the result beside TypeScript in node_modules/.cache so
  // that the next process (every child Vitest run of the tests) skips loading the compiler.
  const source = readFileSync(join(here, 'client', 'app.ts'), 'utf8')
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16)
  const typescript = require.resolve('typescript')
  const cached = join(
    typescript.slice(0, typescript.lastIndexOf(`${sep}typescript${sep}`)),
    '.cache',
    'vitest-energy',
    `html-app-${hash}.js`,
  )
  if (existsSync(cached)) return readFileSync(cached, 'utf8')
  const ts = require('typescript') as typeof TypeScript
  const output = ts.transpileModule(source, {
    compilerOptions: { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext },
  }).outputText
  try {
    mkdirSync(dirname(cached), { recursive: true })
    writeFileSync(cached, output)
  } catch {
    // A read-only node_modules: transpile again next time.
  }
  return output
}
