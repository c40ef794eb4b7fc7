/**
 * The HTML report: one self-contained file (no CDN, no server; opens from a CI artifact offline)
 * with the report's data as JSON, uPlot and d3-hierarchy inlined from node_modules, and the
 * page's script (`client/app.ts`). Pure apart from reading those files once per process.
 *
 * Safety: the data sits in a `<script type="application/json">` with every `<` escaped, so no
 * test name can close it; the page writes strings with textContent only; a Content-Security-Policy
 * lets only the inlined scripts run (by hash) and loads nothing from anywhere.
 */
import { createHash } from 'node:crypto'
import type { EnergyReport } from '../report.js'
import { htmlAssets, type HtmlAssets } from './assets.js'
import { htmlData, type HtmlDataOptions } from './data.js'
import { PAGE_CSS } from './style.js'

export type { BudgetReview, HtmlArtifact, HtmlData } from './data.js'
export { findArtifacts } from './artifacts.js'

/** Where the HTML report goes when no path is configured, relative to the project root. */
export const DEFAULT_HTML_REPORT = '.vitest-energy/report/index.html'

export interface HtmlReportOptions extends HtmlDataOptions {
  /** The inlined code. @default read from node_modules and reporter/html/client */
  readonly assets?: HtmlAssets
}

export function renderHtml(report: EnergyReport, options: HtmlReportOptions = {}): string {
  const assets = options.assets ?? htmlAssets()
  const json = JSON.stringify(htmlData(report, options)).replace(/</g, '\\u003c')
  const scripts = [LOCALE_GUARD + assets.uplotJs, assets.d3HierarchyJs, assets.appJs].map(
    closingSafe,
  )
  const [uplot, d3, app] = scripts
  const css = `${assets.uplotCss}\n${PAGE_CSS}`
  const csp = [
    "default-src 'none'",
    `script-src ${scripts.map((s) => `'sha256-${sha256(s)}'`).join(' ')}`,
    // uPlot and the page size elements through style attributes.
    "style-src 'unsafe-inline'",
    'img-src data:',
  ].join('; ')
  const s = report.summary
  const title = `Energy report: ${s.tests} test${s.tests === 1 ? '' : 's'}`
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="generator" content="vitest-energy">
<title>${title}</title>
<style>${closingSafe(css)}</style>
</head>
<body>
<noscript><p>This report draws its views with JavaScript. Its data is the JSON in the script element with id "energy-data".</p></noscript>
<script type="application/json" id="energy-data">${json}</script>
<script>${uplot ?? ''}</script>
<script>${d3 ?? ''}</script>
<script type="module">${app ?? ''}</script>
</body>
</html>
`
}

/**
 * Runs before uPlot, which formats numbers with `new Intl.NumberFormat(navigator.language)` as it
 * loads. WebKitGTK under the POSIX locale (LANG=C.UTF-8, common on servers and in containers)
 * reports `navigator.language` as "C", which Intl rejects: uPlot never loads and no chart draws.
 * There the page uses the engine's own default locale instead.
 */
export const LOCALE_GUARD = `try { new Intl.NumberFormat(navigator.language) } catch {
  Object.defineProperty(navigator, 'language', { value: new Intl.NumberFormat().resolvedOptions().locale })
}
`

/** Library code never contains `</script` or `</style` today; if a version ever does, break it. */
function closingSafe(code: string): string {
  return code.replace(/<\/(script|style)/gi, '<\\/$1')
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64')
}
