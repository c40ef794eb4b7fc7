/// <reference lib="dom" />
/**
 * The HTML report's page script: runs in the browser (Chromium, Firefox, WebKit; standard DOM
 * only), reads the data embedded by reporter/html (`HtmlData`, see ../data.ts) and draws five
 * views: overview, tests, one test, methods, budgets. Every string from the data goes through
 * `textContent` or `setAttribute`, never `innerHTML`: test names may hold markup. uPlot and
 * d3-hierarchy are the globals their inlined builds define. Navigation is the URL hash
 * (`#tests`, `#test/<file>/<name>`), so the browser's back button and saved links work.
 */
import type * as D3 from 'd3-hierarchy'
import type UPlot from 'uplot'
import type {
  HtmlBudgetChange,
  HtmlData,
  HtmlLimit,
  HtmlMeasuredWindow,
  HtmlMethod,
  HtmlTest,
  HtmlWindow,
} from '../data.js'

declare const uPlot: typeof UPlot
declare const d3: typeof D3

// ─── data ────────────────────────────────────────────────────────────────────────────────────

const data = JSON.parse(document.getElementById('energy-data')?.textContent ?? 'null') as HtmlData
const tests = data.tests
const str = (ref: number | null | undefined): string =>
  ref === null || ref === undefined ? '' : (data.strings[ref] ?? '')

type Color = 'red' | 'yellow' | 'green' | 'uncolored'
const STATES = ['passed', 'failed', 'skipped', 'todo', 'pending'] as const
const STATE_MARK: Record<string, string> = {
  passed: '✓',
  failed: '✗',
  skipped: '↓',
  todo: '✎',
  pending: '…',
}

/** A test's state chip; a `test.fails` test that passed failed as it should (the terminal's ⚑). */
const stateChip = (t: HtmlTest): HTMLElement =>
  t.state === 'passed' && t.expectedToFail === true
    ? h(
        'span',
        { class: 'chip state-expected', title: 'test.fails: it failed, as expected' },
        '⚑ failed as expected',
      )
    : h('span', { class: `chip state-${t.state}` }, `${STATE_MARK[t.state] ?? ''} ${t.state}`)

const measured = (t: HtmlTest): HtmlMeasuredWindow[] =>
  t.windows.filter((w): w is HtmlMeasuredWindow => w.status === 'measured')
const warningsOf = (w: HtmlWindow): readonly (readonly [number, number, number])[] =>
  w.status === 'skipped' ? [] : w.warnings
const testWarnings = (t: HtmlTest): string[] => [
  ...new Set(t.windows.flatMap((w) => warningsOf(w).map(([code]) => str(code)))),
]
/** The codes of a test that are notes in every window (severity `info`: facts, nothing to do). */
const testNoteCodes = (t: HtmlTest): Set<string> => {
  const notes = new Set<string>()
  const acted = new Set<string>()
  for (const w of t.windows)
    for (const [code, severity] of warningsOf(w))
      (str(severity) === 'info' ? notes : acted).add(str(code))
  for (const code of acted) notes.delete(code)
  return notes
}
/**
 * The figures a test's row shows: its own, or, for a test that only measured the idle phone
 * (`energy.baseline()`, left out of a test's energy), that window's gross energy and time.
 */
const idleOnly = (t: HtmlTest): boolean =>
  measured(t).length > 0 && measured(t).every((w) => w.idleBaseline === true)
const rowGrossJ = (t: HtmlTest): number =>
  idleOnly(t) ? measured(t).reduce((sum, w) => sum + w.grossEnergyJ, 0) : t.grossEnergyJ
/**
 * What the test is judged by, and ranked by: its net energy without what a radio or the GPS
 * another test left on drew in its windows.
 */
const ownJ = (t: HtmlTest): number => t.ownEnergyJ ?? t.netEnergyJ
/** `incl. 1.58 J another test left on`, the terminal's words; '' when nothing was carried over. */
const leftOn = (t: HtmlTest): string =>
  t.ownEnergyJ === undefined
    ? ''
    : `incl. ${joules(t.netEnergyJ - t.ownEnergyJ)} another test left on`
const rowDurationS = (t: HtmlTest): number =>
  idleOnly(t) ? measured(t).reduce((sum, w) => sum + w.durationS, 0) : t.durationS
const averagePowerW = (t: HtmlTest): number | undefined =>
  rowDurationS(t) > 0 ? rowGrossJ(t) / rowDurationS(t) : undefined
/** Budget figure as a percentage of the budget. */
const budgetUse = (t: HtmlTest): number | undefined =>
  t.budget && t.budget.energyJ > 0 ? (100 * t.budget.valueJ) / t.budget.energyJ : undefined
/** The matcher limit a test's row shows when it has no budget. */
const rowLimit = (t: HtmlTest): HtmlLimit | undefined =>
  t.budget === undefined && t.limit !== undefined ? t.limits?.[t.limit] : undefined
/** What the Budget / limit column sorts by: the share of the budget, else of the row's limit. */
const rowUse = (t: HtmlTest): number | undefined => budgetUse(t) ?? rowLimit(t)?.usePct
const sourcesOf = (t: HtmlTest): string =>
  [
    ...new Set(
      measured(t).map((w) =>
        w.execution === undefined ? str(w.power) : `${str(w.power)} · ${str(w.execution)}`,
      ),
    ),
  ].join(', ')
const testFile = (t: HtmlTest): string => str(t.file)

// ─── DOM ─────────────────────────────────────────────────────────────────────────────────────

type Child = Node | string | number | false | null | undefined | readonly Child[]
type Props = Record<string, string | number | boolean | undefined | ((event: Event) => void)>

/** An element; string children become text nodes. Attributes are set, never parsed as markup. */
function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props | null = null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === false) continue
    if (typeof value === 'function') el.addEventListener(key.slice(2), value)
    else if (key === 'class') el.className = String(value)
    else el.setAttribute(key, value === true ? '' : String(value))
  }
  append(el, children)
  return el
}

function append(parent: Node, children: readonly Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue
    if (Array.isArray(child)) append(parent, child as readonly Child[])
    else if (typeof child === 'string' || typeof child === 'number')
      parent.appendChild(document.createTextNode(String(child)))
    else parent.appendChild(child as Node)
  }
}

const chip = (text: string, tone = ''): HTMLElement => h('span', { class: `chip ${tone}` }, text)
const link = (text: string, hash: string): HTMLElement => h('a', { href: hash }, text)
/**
 * A test's address: its file and name, so a saved link still points at it after tests are added
 * (a position in the run would not).
 */
const testHash = (index: number): string => {
  const t = tests[index]
  return t === undefined
    ? '#tests'
    : `#test/${encodeURIComponent(testFile(t))}/${encodeURIComponent(t.name)}`
}
const testLink = (index: number): HTMLElement => {
  const t = tests[index]
  return t === undefined ? h('span', null, '?') : link(t.name, testHash(index))
}
/** Prose whose `quoted` parts are code: split into text and <code> nodes, never parsed as markup. */
const prose = (text: string): Child[] =>
  text.split('`').map((part, i) => (i % 2 === 1 ? h('code', null, part) : part))
const empty = (text: string): HTMLElement => h('p', { class: 'empty' }, prose(text))

// ─── units (the same rules as src/model/format.ts) ──────────────────────────────────────────

const SI: ReadonlyArray<readonly [number, string]> = [
  [1, ''],
  [1e-3, 'm'],
  [1e-6, 'µ'],
  [1e-9, 'n'],
]

/** The prefix's scale and the decimals that give `value` three significant digits. */
function scaleOf(value: number): { scale: number; prefix: string; decimals: number } {
  const [scale, prefix] = SI.find(([s]) => Math.abs(value) >= s) ?? [1e-9, 'n']
  const decimals = Math.max(0, 2 - Math.floor(Math.log10(Math.abs(value / scale))))
  return { scale, prefix, decimals }
}

function si(value: number, unit: string): string {
  if (!Number.isFinite(value)) return `${value} ${unit}`
  if (value === 0) return `0 ${unit}`
  if (Math.abs(value) < 1e-9) return `≈ 0 ${unit}`
  const { scale, prefix, decimals } = scaleOf(value)
  return `${(value / scale).toFixed(decimals)} ${prefix}${unit}`
}
const joules = (x: number): string => si(x, 'J')
const watts = (x: number): string => si(x, 'W')
function seconds(x: number): string {
  if (Number.isFinite(x) && x >= 60) {
    const m = Math.floor(x / 60)
    return `${m}m ${String(Math.round(x - m * 60)).padStart(2, '0')}s`
  }
  return si(x, 's')
}
const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`
const percent = (x: number): string => `${x.toFixed(Math.abs(x) >= 100 ? 0 : 1)}%`
const signed = (x: number, format: (v: number) => string): string =>
  x >= 0 ? `+${format(x)}` : `−${format(-x)}`
/**
 * `2.00 J ± 50 mJ` (half the 95% interval, in its own unit, as the terminal writes it), or
 * `2.00 J (95% 1.80 J – 2.30 J)` when the interval is not symmetric.
 */
function withInterval(value: number, low: number | undefined, high: number | undefined): string {
  if (low === undefined || high === undefined) return joules(value)
  const half = (high - low) / 2
  const symmetric = Math.abs(value - (low + half)) <= 1e-6 * Math.max(1, Math.abs(value))
  if (!symmetric) return `${joules(value)} (95% ${joules(low)} – ${joules(high)})`
  return `${joules(value)} ± ${joules(half)}`
}

// ─── navigation ──────────────────────────────────────────────────────────────────────────────

type View = 'overview' | 'tests' | 'test' | 'methods' | 'budgets'
const TABS: ReadonlyArray<readonly [View, string]> = [
  ['overview', 'Overview'],
  ['tests', 'Tests'],
  ['test', 'One test'],
  ['methods', 'Methods'],
  ['budgets', 'Budgets'],
]
const hungriest = [...tests.keys()]
  .filter((i) => measured(tests[i] as HtmlTest).length > 0)
  .sort((a, b) => ownJ(tests[b] as HtmlTest) - ownJ(tests[a] as HtmlTest))
let currentTest = hungriest[0] ?? (tests.length > 0 ? 0 : -1)
let disposers: Array<() => void> = []
const main = h('main', { id: 'panel', role: 'tabpanel', tabindex: -1 })
const tabButtons = new Map<View, HTMLButtonElement>()

function route(): { view: View; test?: number } {
  // `#test/<file>/<name>`, each part percent-encoded (testHash): split before decoding.
  const match = /^#test\/([^/]*)\/(.*)$/.exec(location.hash)
  if (match) {
    const file = safeDecode(match[1] ?? '')
    const name = safeDecode(match[2] ?? '')
    const index = tests.findIndex((t) => testFile(t) === file && t.name === name)
    return index < 0 ? { view: 'tests' } : { view: 'test', test: index }
  }
  const hash = safeDecode(location.hash.slice(1))
  const view = TABS.find(([v]) => v === hash)?.[0]
  return { view: view ?? 'overview' }
}

/** A malformed escape in a hand-edited address is read as it stands. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function hashOf(view: View): string {
  return view === 'test' ? testHash(currentTest) : `#${view}`
}

function render(): void {
  for (const dispose of disposers) dispose()
  disposers = []
  const { view, test } = route()
  if (test !== undefined && tests[test] !== undefined) currentTest = test
  for (const [v, button] of tabButtons) {
    const selected = v === view
    button.setAttribute('aria-selected', String(selected))
    button.tabIndex = selected ? 0 : -1
  }
  main.setAttribute('aria-labelledby', `tab-${view}`)
  main.replaceChildren()
  try {
    if (view === 'overview') overview(main)
    else if (view === 'tests') testsView(main)
    else if (view === 'test') testView(main)
    else if (view === 'methods') methodsView(main)
    else budgetsView(main)
  } catch (error) {
    console.error(error)
    main.append(h('pre', null, `This view failed to draw: ${String(error)}`))
  }
}

function tabBar(): HTMLElement {
  const bar = h('div', { role: 'tablist', 'aria-label': 'Report views' })
  const buttons: HTMLButtonElement[] = []
  for (const [view, label] of TABS) {
    const button = h(
      'button',
      {
        type: 'button',
        role: 'tab',
        id: `tab-${view}`,
        'aria-controls': 'panel',
        onclick: () => go(hashOf(view)),
      },
      label,
    )
    tabButtons.set(view, button)
    buttons.push(button)
  }
  // Arrow keys move between tabs (WAI-ARIA tabs pattern, automatic activation).
  bar.addEventListener('keydown', (event) => {
    const index = buttons.indexOf(document.activeElement as HTMLButtonElement)
    if (index < 0) return
    const next =
      event.key === 'ArrowRight'
        ? (index + 1) % buttons.length
        : event.key === 'ArrowLeft'
          ? (index - 1 + buttons.length) % buttons.length
          : event.key === 'Home'
            ? 0
            : event.key === 'End'
              ? buttons.length - 1
              : -1
    if (next < 0) return
    event.preventDefault()
    buttons[next]?.focus()
    buttons[next]?.click()
  })
  append(bar, buttons)
  return bar
}

function go(hash: string): void {
  if (location.hash === hash) render()
  else location.hash = hash
}

// ─── sortable tables ─────────────────────────────────────────────────────────────────────────

interface Column<T> {
  readonly label: string
  readonly num?: boolean
  /** Sort key; undefined sorts last. No key: not sortable. */
  readonly key?: (row: T) => number | string | undefined
  readonly cell: (row: T) => Child
  readonly title?: string
}

interface SortState {
  column: number
  descending: boolean
}

function compareKeys(a: number | string | undefined, b: number | string | undefined): number {
  if (a === undefined) return b === undefined ? 0 : 1
  if (b === undefined) return -1
  if (typeof a === 'number' && typeof b === 'number') return a - b
  return String(a).localeCompare(String(b))
}

function sortRows<T>(rows: T[], columns: readonly Column<T>[], sort: SortState | undefined): T[] {
  const key = sort === undefined ? undefined : columns[sort.column]?.key
  if (sort === undefined || key === undefined) return rows
  const keyed = rows.map((row) => [key(row), row] as const)
  keyed.sort((x, y) => {
    if (x[0] === undefined || y[0] === undefined) return compareKeys(x[0], y[0])
    const c = compareKeys(x[0], y[0])
    return sort.descending ? -c : c
  })
  return keyed.map(([, row]) => row)
}

/** A table whose sortable headers are buttons (focusable, Enter/Space), with aria-sort. */
function table<T>(
  columns: readonly Column<T>[],
  rows: readonly T[],
  sort: SortState | undefined,
  onSort: (sort: SortState) => void,
  caption?: string,
): HTMLTableElement {
  const head = h(
    'tr',
    null,
    columns.map((c, i) => {
      const state =
        sort?.column === i ? (sort.descending ? 'descending' : 'ascending') : c.key ? 'none' : ''
      return h(
        'th',
        {
          class: c.num ? 'num' : undefined,
          scope: 'col',
          'aria-sort': state || undefined,
          title: c.title,
        },
        c.key
          ? h(
              'button',
              {
                type: 'button',
                class: 'sort',
                onclick: () =>
                  onSort({
                    column: i,
                    // Numbers sort largest first on the first click, names A→Z.
                    descending: sort?.column === i ? !sort.descending : c.num === true,
                  }),
              },
              c.label,
            )
          : c.label,
      )
    }),
  )
  return h(
    'table',
    null,
    caption === undefined ? null : h('caption', { class: 'caption' }, caption),
    h('thead', null, head),
    h(
      'tbody',
      null,
      rows.map((row) =>
        h(
          'tr',
          null,
          columns.map((c) => h('td', { class: c.num ? 'num' : undefined }, c.cell(row))),
        ),
      ),
    ),
  )
}

/** A table that keeps its own sort state and redraws itself in place. */
function sortableTable<T>(
  columns: readonly Column<T>[],
  rows: readonly T[],
  initial?: SortState,
  limit = Infinity,
): HTMLElement {
  const holder = h('div')
  let sort = initial
  const draw = (focus: boolean): void => {
    const sorted = sortRows([...rows], columns, sort)
    const shown = sorted.slice(0, limit)
    holder.replaceChildren()
    append(holder, [
      table(columns, shown, sort, (next) => {
        sort = next
        draw(true)
      }),
      sorted.length > shown.length
        ? h('p', { class: 'caption' }, `${shown.length} of ${sorted.length} rows shown.`)
        : null,
    ])
    if (focus && sort !== undefined)
      holder.querySelectorAll<HTMLButtonElement>('th button.sort')[sort.column]?.focus()
  }
  draw(false)
  return holder
}

// ─── overview ────────────────────────────────────────────────────────────────────────────────

function card(label: string, value: string, ...detail: Child[]): HTMLElement {
  return h(
    'div',
    { class: 'card' },
    h('div', { class: 'label' }, label),
    h('div', { class: 'value' }, value),
    h('div', { class: 'detail' }, detail),
  )
}

function counted(values: readonly string[]): Array<[string, number]> {
  const counts = new Map<string, number>()
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1)
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
}

/** within · over · inconclusive · missing, coloured when not zero. */
/** New budgets that a run checking budgets wrote (the runner's `new` mode; `-u` says `added`). */
function written(b: NonNullable<HtmlData['budgets']>): number {
  return b.updated ? 0 : b.entries.filter((e) => e.kind === 'added').length
}

function verdictChips(b: NonNullable<HtmlData['budgets']>, missing: string): Child[] {
  return [
    chip(`${b.within} within`, 'green'),
    ' ',
    chip(`${b.over} over`, b.over > 0 ? 'red' : ''),
    ' ',
    chip(`${b.inconclusive} inconclusive`, b.inconclusive > 0 ? 'yellow' : ''),
    ' ',
    chip(`${b.missing} ${missing}`),
  ]
}

/**
 * A failed test's reason in one line: its failure's first line (a matcher's `expect(…)` header
 * with the line that says why), else why it measured nothing.
 */
function failureReason(t: HtmlTest): string {
  const lines = t.failure?.message.split('\n').filter((line) => line.trim() !== '')
  const first =
    lines === undefined || lines.length === 0
      ? undefined
      : lines[0]?.startsWith('expect(') && lines[1] !== undefined
        ? `${lines[0]}: ${lines[1].trim()}`
        : lines[0]
  if (first !== undefined) {
    const code = t.failure?.code
    return code === undefined || first.startsWith(`[${code}]`) ? first : `[${code}] ${first}`
  }
  if (t.noEnergyReason !== undefined) return `no energy measured: ${t.noEnergyReason}`
  return 'failed'
}

function overview(root: HTMLElement): void {
  const s = data.summary
  const windows = tests.flatMap((t) => measured(t))
  // Skipped windows: those abandoned when their test ended (the reason says so, as in the
  // terminal) apart from the rest.
  const abandonedWindows = tests
    .flatMap((t) => t.windows)
    .filter((w) => w.status === 'skipped' && /abandoned/.test(w.reason)).length
  const skippedWindows = s.windows - s.measuredWindows - s.failedWindows - abandonedWindows
  // Counted as the terminal counts them: each code once per window, notes (info) apart.
  const tally = { warnings: 0, notes: 0 }
  for (const t of tests)
    for (const w of t.windows) {
      const severities = new Map(warningsOf(w).map(([code, severity]) => [code, str(severity)]))
      for (const severity of severities.values())
        if (severity === 'info') tally.notes++
        else tally.warnings++
    }
  const devices = counted(windows.flatMap((w) => (w.device === undefined ? [] : [str(w.device)])))
  const power = counted(windows.map((w) => str(w.power)))
  const execution = counted(
    windows.map((w) => (w.execution === undefined ? 'none' : str(w.execution))),
  )
  const list = (items: Array<[string, number]>, unit: string): string =>
    items.map(([name, n]) => `${name} (${n} ${unit}${n === 1 ? '' : 's'})`).join(', ') || '—'
  const states = STATES.filter((st) => s.states[st] > 0).map((st) => `${s.states[st]} ${st}`)

  if (data.interrupted)
    root.append(
      h(
        'p',
        { class: 'banner' },
        'The run was interrupted: tests that had not finished are pending.',
      ),
    )
  if (tests.length === 0 && data.suiteFailures.length === 0 && data.unhandledErrors.length === 0)
    // Vitest reports an error of the run's setup (a wrong `app`, no phone) to the terminal only.
    root.append(
      h(
        'p',
        { class: 'banner' },
        'No test ran. If the run stopped before its tests (an error in its setup, such as an app that is not installed), the error is in the terminal output, not in this report.',
      ),
    )
  const failed = [...tests.keys()].filter((i) => tests[i]?.state === 'failed')
  if (failed.length > 0) {
    // What to look at first: the failed tests, each with why, as the terminal lists them.
    root.append(
      h('h2', { id: 'failed-heading' }, `Failed tests (${failed.length})`),
      h(
        'ul',
        { id: 'failed', class: 'failed-tests', 'aria-labelledby': 'failed-heading' },
        failed.map((i) => {
          const t = tests[i] as HtmlTest
          return h(
            'li',
            null,
            h('span', { class: 'name test-name' }, testLink(i)),
            ' ',
            h('span', { class: 'small muted' }, testFile(t)),
            h('div', { class: 'small reason' }, failureReason(t)),
          )
        }),
      ),
    )
  }
  root.append(
    h(
      'div',
      { class: 'cards', id: 'totals' },
      card('Net energy', joules(s.totalNetEnergyJ), 'above the idle level'),
      card('Gross energy', joules(s.totalGrossEnergyJ), 'idle level included'),
      card('Tests', String(s.tests), states.join(' · ')),
      card(
        'Energy windows',
        String(s.windows),
        [
          `${s.measuredWindows} measured`,
          `${s.failedWindows} failed`,
          ...(abandonedWindows > 0 ? [`${abandonedWindows} abandoned`] : []),
          `${skippedWindows} skipped`,
        ].join(' · '),
      ),
      card('Devices', String(devices.length), list(devices, 'window')),
      card('Power sources', s.sources.join(', ') || '—', list(power, 'window')),
      card(
        'Execution sources',
        String(execution.filter(([n]) => n !== 'none').length),
        list(execution, 'window'),
      ),
      s.methodEnergy === undefined
        ? null
        : card(
            "Methods' energy",
            [
              ...new Set(
                s.methodEnergy.map((m) => (m.startsWith('CPU') ? 'CPU model' : 'SoC rails')),
              ),
            ].join(' · '),
            [
              ...(data.cpuModel ?? []),
              // The profile's file name: the whole path is in each window's detail.
              ...s.methodEnergy.flatMap((m) => {
                const profile = /; profile: (.*)$/.exec(m)?.[1]
                const file = profile
                  ?.replace(/ \(.*\)$/, '')
                  .split('/')
                  .pop()
                return file === undefined ? [] : [`profile from ${file}`]
              }),
            ].join(' · '),
          ),
      card(
        'Warnings',
        String(tally.warnings),
        tally.notes > 0
          ? `in energy windows · and ${tally.notes} note${tally.notes === 1 ? '' : 's'} (facts, nothing to act on)`
          : 'in energy windows',
      ),
    ),
  )

  const b = data.budgets
  root.append(h('h2', null, 'Budgets'))
  if (b === undefined) {
    root.append(
      empty('No budget file. `vitest -u` writes energy-budgets.json from this run’s measurements.'),
    )
  } else {
    const obsolete = b.entries.filter((e) => e.kind === 'obsolete').length
    root.append(
      h(
        'p',
        { id: 'budget-counts' },
        b.updated
          ? [
              `This run wrote ${b.file}: `,
              chip(`${b.entries.filter((e) => e.kind === 'added').length} added`),
              ' ',
              chip(`${b.entries.filter((e) => e.kind === 'changed').length} changed`),
              ' ',
              chip(`${obsolete} obsolete removed`),
            ]
          : [
              written(b) > 0 ? [chip(`${written(b)} written (new)`, 'green'), ' '] : null,
              verdictChips(b, 'missing'),
              obsolete > 0 ? [' ', chip(`${obsolete} obsolete`, 'yellow')] : null,
              ` in ${b.file}`,
            ],
        ' · ',
        link('review budgets', '#budgets'),
      ),
    )
  }

  const base = data.baseline
  // Another run's report, not the idle baseline that net energy is taken against.
  root.append(h('h2', null, 'Compared with an earlier run'))
  if (base === undefined) {
    root.append(
      empty(
        'No earlier report to compare with: give the reporter option `baseline` an earlier run’s JSON report to see regressions.',
      ),
    )
  } else {
    root.append(
      h(
        'p',
        null,
        `${base.compared} tests compared with ${base.file}: `,
        chip(
          plural(base.regressions.length, 'regression'),
          base.regressions.length > 0 ? 'red' : '',
        ),
        ' ',
        chip(
          plural(base.improvements.length, 'improvement'),
          base.improvements.length > 0 ? 'green' : '',
        ),
      ),
    )
    const deltaColumns: Column<number>[] = [
      { label: 'Test', cell: (i) => testLink(i) },
      {
        label: 'Δ net',
        num: true,
        cell: (i) => signed(tests[i]?.baseline?.deltaJ ?? 0, joules),
      },
      {
        label: 'Δ %',
        num: true,
        cell: (i) => {
          const pct = tests[i]?.baseline?.deltaPct
          return pct === null || pct === undefined ? '—' : signed(pct, percent)
        },
      },
      {
        label: 'baseline → now',
        num: true,
        cell: (i) =>
          `${joules(tests[i]?.baseline?.baselineNetEnergyJ ?? 0)} → ${joules(tests[i]?.ownEnergyJ ?? tests[i]?.netEnergyJ ?? 0)}`,
      },
    ]
    const two = h('div', { class: 'columns' })
    for (const [title, rows, id] of [
      ['Regressions', base.regressions, 'regressions'],
      ['Improvements', base.improvements, 'improvements'],
    ] as const) {
      two.append(
        h(
          'section',
          { id },
          h('h3', null, title),
          rows.length === 0
            ? empty('none')
            : table(deltaColumns, rows.slice(0, 20), undefined, () => undefined),
        ),
      )
    }
    root.append(two)
  }

  const top = hungriest.slice(0, 10)
  const max = top[0] === undefined ? 0 : ownJ(tests[top[0]] as HtmlTest)
  root.append(
    h('h2', null, 'Hungriest tests'),
    // Said only where it changes something: a test with energy another test left on.
    ...(top.some((i) => tests[i]?.ownEnergyJ !== undefined)
      ? [
          h(
            'p',
            { class: 'muted', id: 'hungriest-note' },
            'By their own energy, the figure matchers and budgets judge: what a radio or the GPS another test left on drew in a test’s windows is not its own.',
          ),
        ]
      : []),
    top.length === 0
      ? empty('No test measured energy.')
      : h(
          'div',
          { class: 'bars', id: 'hungriest' },
          top.map((i) => {
            const t = tests[i] as HtmlTest
            return [
              h('div', { class: 'name' }, testLink(i)),
              h(
                'div',
                { class: 'bar' },
                h('span', {
                  style: `width:${max > 0 ? Math.max(0, (100 * ownJ(t)) / max) : 0}%`,
                }),
              ),
              h(
                'div',
                {
                  class: 'num',
                  title:
                    t.ownEnergyJ === undefined
                      ? undefined
                      : `${joules(t.ownEnergyJ)} own; ${joules(t.netEnergyJ)} net ${leftOn(t)}`,
                },
                joules(ownJ(t)),
              ),
            ]
          }),
        ),
  )

  root.append(h('h2', null, 'Warnings'), warningTable())

  if (data.suiteFailures.length > 0 || data.unhandledErrors.length > 0) {
    root.append(h('h2', null, 'Errors outside tests'))
    for (const f of data.suiteFailures)
      root.append(
        h('h3', null, `${f.file}${f.suite === '' ? '' : ` › ${f.suite}`}`),
        h('pre', null, f.message),
      )
    for (const e of data.unhandledErrors)
      root.append(h('h3', null, 'Unhandled error'), h('pre', null, e.message))
  }
}

function warningTable(): HTMLElement {
  interface Group {
    code: string
    severity: string
    windows: number
    tests: Set<number>
    message: string
  }
  const groups = new Map<string, Group>()
  tests.forEach((t, i) => {
    for (const w of t.windows) {
      // A window counts once per code, however many of its warnings carry it (as the terminal's ×N
      // and the Warnings card count).
      const seen = new Set<string>()
      for (const [code, severity, message] of warningsOf(w)) {
        const key = str(code)
        if (seen.has(key)) continue
        seen.add(key)
        const g = groups.get(key) ?? {
          code: key,
          severity: str(severity),
          windows: 0,
          tests: new Set<number>(),
          message: str(message),
        }
        g.windows++
        g.tests.add(i)
        groups.set(key, g)
      }
    }
  })
  if (groups.size === 0) return empty('No warnings.')
  const columns: Column<Group>[] = [
    { label: 'Code', key: (g) => g.code, cell: (g) => h('code', null, g.code) },
    { label: 'Severity', key: (g) => g.severity, cell: (g) => g.severity },
    { label: 'Windows', num: true, key: (g) => g.windows, cell: (g) => g.windows },
    { label: 'Tests', num: true, key: (g) => g.tests.size, cell: (g) => g.tests.size },
    { label: 'For example', cell: (g) => g.message },
    {
      label: '',
      cell: (g) =>
        h(
          'button',
          {
            type: 'button',
            class: 'link',
            onclick: () => {
              testsState.warning = g.code
              testsState.page = 0
              go('#tests')
            },
          },
          'show tests',
        ),
    },
  ]
  const holder = sortableTable(columns, [...groups.values()], { column: 2, descending: true })
  holder.id = 'warnings'
  return holder
}

// ─── tests ───────────────────────────────────────────────────────────────────────────────────

const PAGE = 100
const testsState = {
  query: '',
  state: 'all',
  show: 'all',
  warning: '',
  sort: undefined as SortState | undefined,
  page: 0,
}

const SHOW: ReadonlyArray<readonly [string, string, (t: HtmlTest) => boolean]> = [
  ['all', 'all tests', () => true],
  ['over', 'over budget', (t) => t.budget?.verdict === 'over'],
  ['inconclusive', 'budget inconclusive', (t) => t.budget?.verdict === 'inconclusive'],
  ['limit', 'failed a matcher limit', (t) => t.limits?.some((l) => !l.passed) === true],
  ['worse', 'regressions', (t) => t.baseline?.verdict === 'worse'],
  ['better', 'improvements', (t) => t.baseline?.verdict === 'better'],
  ['warnings', 'with warnings', (t) => testWarnings(t).length > 0],
  ['none', 'without energy', (t) => t.noEnergyReason !== undefined],
]

function verdictChip(verdict: string, text = verdict): HTMLElement {
  return h('span', { class: `chip verdict-${verdict}` }, text)
}

function budgetCell(t: HtmlTest): Child {
  const b = t.budget
  if (b === undefined) return t.budgetFigure === undefined ? '—' : 'no budget'
  const use = budgetUse(t) ?? 0
  return h(
    'span',
    { class: 'budget', title: `${joules(b.valueJ)} of ${joules(b.energyJ)} (${percent(use)})` },
    h(
      'span',
      { class: `use ${b.verdict}`, role: 'img', 'aria-label': `${percent(use)} of budget` },
      h('span', { style: `width:${Math.min(100, Math.max(0, use))}%` }),
    ),
    h('span', { class: 'use-pct' }, percent(use)),
    ' ',
    verdictChip(b.verdict),
    h('div', { class: 'small muted' }, `of ${joules(b.energyJ)}`),
  )
}

/** A check's verdict: `passed`, or why not (`over`, `within` for a `.not`, `inconclusive`…). */
function limitVerdict(l: HtmlLimit): HTMLElement {
  const tone = l.passed ? 'within' : l.verdict === 'inconclusive' ? 'inconclusive' : 'over'
  return verdictChip(
    tone,
    l.passed ? 'passed' : l.verdict === 'unjudgeable' ? 'no figure' : l.verdict,
  )
}

/**
 * A matcher's limit as the budget is drawn: the share of the limit its figure used (a bar, for
 * J and W limits), the verdict, and the limit (`limit < 2.50 J · gross`); hovering, every limit
 * the test checked.
 */
function limitCell(t: HtmlTest, l: HtmlLimit): Child {
  const more = (t.limits?.length ?? 1) - 1
  const use = l.usePct
  const tone = l.passed ? 'within' : l.verdict === 'inconclusive' ? 'inconclusive' : 'over'
  return h(
    'span',
    {
      class: 'budget limit',
      title: (t.limits ?? []).map((x) => `${x.matcher}: ${x.text}`).join('\n'),
    },
    use === undefined
      ? null
      : [
          h(
            'span',
            { class: `use ${tone}`, role: 'img', 'aria-label': `${percent(use)} of the limit` },
            h('span', { style: `width:${Math.min(100, Math.max(0, use))}%` }),
          ),
          h('span', { class: 'use-pct' }, percent(use)),
          ' ',
        ],
    limitVerdict(l),
    h(
      'div',
      { class: 'small muted' },
      [`limit ${l.bound}`, l.qualifier, more > 0 ? `+${plural(more, 'limit')}` : '']
        .filter((x) => x !== '')
        .join(' · '),
    ),
  )
}

function deltaCell(t: HtmlTest): Child {
  const d = t.baseline
  if (d === undefined) return '—'
  const pct = d.deltaPct === null ? '' : ` (${signed(d.deltaPct, percent)})`
  const how =
    d.method === 'mann-whitney'
      ? `Mann–Whitney, p = ${d.pValue?.toPrecision(2) ?? '?'}`
      : 'threshold on the point estimate'
  return h(
    'span',
    { class: 'delta', title: `baseline ${joules(d.baselineNetEnergyJ)}; ${how}` },
    `${signed(d.deltaJ, joules)} `,
    verdictChip(d.verdict),
    pct === '' ? null : h('div', { class: 'small muted' }, pct.trim()),
  )
}

function netCell(t: HtmlTest): Child {
  if (t.noEnergyReason !== undefined) return '—'
  if (idleOnly(t))
    return h(
      'span',
      {
        class: 'muted',
        title: 'energy.baseline(): the idle phone, the reference a test’s energy leaves out',
      },
      'idle reference',
    )
  const f = t.budgetFigure
  const single = t.windows.length === 1 ? measured(t)[0]?.netIntervalJ : undefined
  return [
    single === undefined ? joules(t.netEnergyJ) : withInterval(t.netEnergyJ, single[0], single[1]),
    t.ownEnergyJ === undefined
      ? null
      : h(
          'div',
          {
            class: 'small muted own',
            title: 'what the test is judged by: its net energy without what another test left on',
          },
          `${leftOn(t)}; ${joules(t.ownEnergyJ)} own`,
        ),
    f === undefined || f.n < 2
      ? null
      : h(
          'div',
          {
            class: 'small muted figure',
            title: 'the figure a budget checks: repetitions as their mean',
          },
          figureText(f),
        ),
  ]
}

/**
 * A budget figure as the terminal writes it: `13.9 mJ ± 0.4 mJ (mean of 5)`, or, over several
 * windows (two repeat() calls), `… (sum of 2 windows, repetitions as their mean)`.
 */
function figureText(f: NonNullable<HtmlTest['budgetFigure']>): string {
  const parts = f.parts ?? 1
  const what =
    parts >= 2
      ? ` (sum of ${parts} windows${f.n >= 2 ? ', repetitions as their mean' : ''})`
      : f.n >= 2
        ? ` (mean of ${f.n})`
        : ''
  return `${withInterval(f.valueJ, f.lowJ, f.highJ)}${what}`
}

/** A figure of tests that measured energy; '—' for the others. */
function measuredColumn(
  label: string,
  figure: (t: HtmlTest) => number | undefined,
  format: (x: number) => string,
): Column<number> {
  const value = (i: number): number | undefined => {
    const t = tests[i]
    return t === undefined || t.noEnergyReason !== undefined ? undefined : figure(t)
  }
  return {
    label,
    num: true,
    key: value,
    cell: (i) => {
      const v = value(i)
      return v === undefined ? '—' : format(v)
    },
  }
}

const TEST_COLUMNS: readonly Column<number>[] = [
  {
    label: 'State',
    key: (i) => tests[i]?.state,
    cell: (i) => stateChip(tests[i] as HtmlTest),
  },
  {
    label: 'Test',
    key: (i) => tests[i]?.name,
    cell: (i) => {
      const t = tests[i] as HtmlTest
      const failure = t.failure?.message.split('\n')[0]
      return [
        h('div', { class: 'name test-name' }, testLink(i)),
        h(
          'div',
          { class: 'small muted' },
          testFile(t),
          sourcesOf(t) === '' ? null : h('span', { class: 'source' }, ` · ${sourcesOf(t)}`),
        ),
        t.noEnergyReason === undefined
          ? null
          : h('div', { class: 'small muted reason' }, `no energy measured: ${t.noEnergyReason}`),
        failure === undefined
          ? null
          : h('div', { class: 'small', style: 'color:var(--red)' }, failure),
      ]
    },
  },
  {
    label: 'Net',
    num: true,
    title: 'net energy: gross minus the idle level; ± is half the 95% interval',
    key: (i) => (tests[i]?.noEnergyReason === undefined ? tests[i]?.netEnergyJ : undefined),
    cell: (i) => netCell(tests[i] as HtmlTest),
  },
  measuredColumn('Gross', rowGrossJ, joules),
  measuredColumn('Avg power', averagePowerW, watts),
  measuredColumn('Duration', rowDurationS, seconds),
  {
    label: 'Budget / limit',
    title:
      'the share of the test’s budget its figure used, or (without a budget) of its energy matcher’s limit',
    key: (i) => rowUse(tests[i] as HtmlTest),
    num: true,
    cell: (i) => {
      const t = tests[i] as HtmlTest
      const l = rowLimit(t)
      return l === undefined ? budgetCell(t) : limitCell(t, l)
    },
  },
  {
    label: 'Δ baseline',
    num: true,
    key: (i) => tests[i]?.baseline?.deltaJ,
    cell: (i) => deltaCell(tests[i] as HtmlTest),
  },
  {
    label: 'Warnings',
    key: (i) => testWarnings(tests[i] as HtmlTest).length || undefined,
    cell: (i) => {
      const t = tests[i] as HtmlTest
      const notes = testNoteCodes(t)
      // A note is drawn muted, after the warnings: a fact, not something to act on.
      return testWarnings(t)
        .sort((a, b) => Number(notes.has(a)) - Number(notes.has(b)))
        .map((code) => [
          notes.has(code)
            ? h(
                'code',
                { class: 'note', title: 'a note: a fact, nothing to act on' },
                ...breakable(code),
              )
            : h('code', null, ...breakable(code)),
          ' ',
        ])
    },
  },
]

/**
 * A warning code that may break after its underscores (`W_ASYNC_` / `CARRIED_OVER`): unbroken, the
 * longest code widens the tests table past a 1400 px window.
 */
function breakable(code: string): Child[] {
  // Never after the `W_` prefix: `W_` alone on a line reads as nothing.
  const [prefix = '', first = '', ...rest] = code.split('_')
  return [`${prefix}_${first}`, ...rest.flatMap((part) => ['_', h('wbr'), part])]
}

function testsView(root: HTMLElement): void {
  const state = testsState
  const query = h('input', {
    type: 'search',
    id: 'filter',
    value: state.query,
    placeholder: 'name or file contains…',
    autocomplete: 'off',
  })
  const stateSelect = h(
    'select',
    { id: 'state-filter' },
    ['all', ...STATES].map((s) => h('option', { value: s, selected: s === state.state }, s)),
  )
  const showSelect = h(
    'select',
    { id: 'show-filter' },
    SHOW.map(([value, label]) => h('option', { value, selected: value === state.show }, label)),
  )
  const count = h('span', { class: 'muted', 'aria-live': 'polite', id: 'count' })
  const body = h('div')
  const controls = h(
    'div',
    { class: 'controls' },
    h('label', null, 'Filter', query),
    h('label', null, 'State', stateSelect),
    h('label', null, 'Show', showSelect),
    state.warning === ''
      ? null
      : h(
          'span',
          null,
          'warning ',
          h('code', null, state.warning),
          ' ',
          h(
            'button',
            {
              type: 'button',
              class: 'link',
              onclick: () => {
                state.warning = ''
                render()
              },
            },
            'clear',
          ),
        ),
    count,
  )
  root.append(controls, body)

  const draw = (focusSort = false): void => {
    const needle = state.query.trim().toLowerCase()
    const show = SHOW.find(([v]) => v === state.show)?.[2] ?? (() => true)
    const rows = [...tests.keys()].filter((i) => {
      const t = tests[i] as HtmlTest
      if (state.state !== 'all' && t.state !== state.state) return false
      if (!show(t)) return false
      if (state.warning !== '' && !testWarnings(t).includes(state.warning)) return false
      return (
        needle === '' ||
        t.name.toLowerCase().includes(needle) ||
        testFile(t).toLowerCase().includes(needle)
      )
    })
    const sorted = sortRows(rows, TEST_COLUMNS, state.sort)
    const pages = Math.max(1, Math.ceil(sorted.length / PAGE))
    state.page = Math.min(state.page, pages - 1)
    const first = state.page * PAGE
    const shown = sorted.slice(first, first + PAGE)
    count.textContent = `${sorted.length} of ${tests.length} tests`
    const pager = (): HTMLElement =>
      h(
        'nav',
        { class: 'pager', 'aria-label': 'Pages' },
        h(
          'button',
          { type: 'button', disabled: state.page === 0, onclick: () => turn(0) },
          '« first',
        ),
        h(
          'button',
          { type: 'button', disabled: state.page === 0, onclick: () => turn(state.page - 1) },
          '‹ previous',
        ),
        h(
          'span',
          null,
          `rows ${sorted.length === 0 ? 0 : first + 1}–${first + shown.length} of ${sorted.length} · page ${state.page + 1} of ${pages}`,
        ),
        h(
          'button',
          {
            type: 'button',
            disabled: state.page >= pages - 1,
            onclick: () => turn(state.page + 1),
          },
          'next ›',
        ),
        h(
          'button',
          { type: 'button', disabled: state.page >= pages - 1, onclick: () => turn(pages - 1) },
          'last »',
        ),
      )
    const grid = table(TEST_COLUMNS, shown, state.sort, (sort) => {
      state.sort = sort
      state.page = 0
      draw(true)
    })
    grid.id = 'tests-table'
    body.replaceChildren(h('div', { class: 'scroll' }, grid))
    if (pages > 1) {
      body.prepend(pager())
      body.append(pager())
    }
    if (shown.length === 0) body.append(empty('No test matches.'))
    if (focusSort && state.sort !== undefined)
      grid.querySelectorAll<HTMLButtonElement>('th button.sort')[state.sort.column]?.focus()
  }
  const turn = (page: number): void => {
    state.page = page
    draw()
  }
  let typing: ReturnType<typeof setTimeout> | undefined
  query.addEventListener('input', () => {
    clearTimeout(typing)
    typing = setTimeout(() => {
      state.query = query.value
      state.page = 0
      draw()
    }, 120)
  })
  stateSelect.addEventListener('change', () => {
    state.state = stateSelect.value
    state.page = 0
    draw()
  })
  showSelect.addEventListener('change', () => {
    state.show = showSelect.value
    state.page = 0
    draw()
  })
  draw()
}

// ─── one test ────────────────────────────────────────────────────────────────────────────────

const windowChoice = new Map<number, number>()

function facts(rows: ReadonlyArray<readonly [string, Child] | null | false>): HTMLElement {
  return h(
    'dl',
    { class: 'facts' },
    rows.map((row) => (row ? [h('dt', null, row[0]), h('dd', null, row[1])] : null)),
  )
}

function testView(root: HTMLElement): void {
  const index = currentTest
  const t = tests[index]
  if (t === undefined) {
    root.append(empty('The run has no tests.'))
    return
  }
  const order = hungriest.indexOf(index)
  root.append(
    h(
      'nav',
      { class: 'pager', 'aria-label': 'Tests' },
      link('← all tests', '#tests'),
      index > 0 ? link('‹ previous in run order', testHash(index - 1)) : null,
      index < tests.length - 1 ? link('next in run order ›', testHash(index + 1)) : null,
      order >= 0 ? h('span', { class: 'muted' }, `#${order + 1} by net energy`) : null,
    ),
    h('h2', { id: 'test-name', class: 'name' }, t.name),
    h(
      'p',
      null,
      stateChip(t),
      t.expectedToFail ? ' (test.fails: Vitest counts it as passed) ' : ' ',
      h('span', { class: 'muted' }, testFile(t)),
    ),
  )
  if (t.noEnergyReason !== undefined)
    root.append(
      h('p', { class: 'banner', id: 'no-energy' }, `No energy measured: ${t.noEnergyReason}`),
    )
  if (t.failure !== undefined) {
    root.append(
      h(
        'h3',
        null,
        t.failure.suite === undefined
          ? 'Failure'
          : `Failure of ${t.failure.suite === '' ? 'the file' : t.failure.suite}`,
      ),
      h(
        'pre',
        { class: 'failure' },
        `${t.failure.code === undefined ? '' : `[${t.failure.code}] `}${t.failure.message}`,
      ),
    )
  }
  for (const e of t.errors ?? []) if (e !== t.failure?.message) root.append(h('pre', null, e))

  const windows = measured(t)
  const w = t.windows[Math.min(windowChoice.get(index) ?? 0, t.windows.length - 1)]
  if (windows.length > 0) {
    const f = t.budgetFigure
    root.append(
      h(
        'div',
        { id: 'test-facts' },
        facts([
          t.ownEnergyJ === undefined ? null : ['Own energy', joules(t.ownEnergyJ)],
          ['Net energy', `${joules(t.netEnergyJ)} ${leftOn(t)}`.trim()],
          ['Gross energy', joules(t.grossEnergyJ)],
          ['Duration', seconds(t.durationS)],
          ['Average power', watts(averagePowerW(t) ?? 0)],
          f === undefined ? null : ['Budget figure', figureText(f)],
          t.budget === undefined ? null : ['Budget', budgetCell(t)],
          t.limits === undefined
            ? null
            : [
                t.limits.length === 1 ? 'Matcher limit' : `Matcher limits (${t.limits.length})`,
                h(
                  'div',
                  { id: 'test-limits' },
                  t.limits.map((l) =>
                    h(
                      'div',
                      { class: 'limit' },
                      h('code', null, l.matcher),
                      l.target === undefined ? ' ' : ` on ${l.target}: `,
                      l.text,
                      ' ',
                      limitVerdict(l),
                      l.reason === undefined ? null : h('div', { class: 'small muted' }, l.reason),
                    ),
                  ),
                ),
              ],
          t.baseline === undefined ? null : ['Δ baseline', deltaCell(t)],
          ['Sources', sourcesOf(t)],
        ]),
      ),
    )
    if (windows.length > 1 || windows.some((x) => x.timeline === undefined)) {
      const chart = h('div', { class: 'chart', id: 'timeline' })
      root.append(
        h('h3', null, 'Power over the test’s windows'),
        chart,
        h(
          'p',
          { class: 'caption' },
          'Average power of each rail over each energy window (stacked), the idle level subtracted for net energy (dashed), window edges marked; each window’s own timeline is in its panel below.',
        ),
      )
      timeline(chart, windows, w)
    }
  }

  if (t.windows.length > 1) {
    const choice = windowChoice.get(index) ?? 0
    root.append(
      h('h3', null, `Energy windows (${t.windows.length})`),
      h(
        'div',
        { class: 'windows', role: 'group', 'aria-label': 'Energy windows' },
        t.windows.map((w, k) =>
          h(
            'button',
            {
              type: 'button',
              'aria-pressed': String(k === choice),
              onclick: () => {
                windowChoice.set(index, k)
                render()
              },
            },
            `${w.label}${w.status === 'measured' ? ` · ${joules(w.netEnergyJ)}` : ` · ${w.status}`}`,
          ),
        ),
      ),
    )
  }
  if (w !== undefined) root.append(windowPanel(w))

  root.append(h('h3', null, 'Raw data'))
  if (t.artifacts === undefined) {
    root.append(
      empty(
        'None kept for this test (the plugin’s `artifacts` option keeps them on failure by default).',
      ),
    )
  } else {
    root.append(
      h(
        'ul',
        { id: 'artifacts' },
        t.artifacts.map((a) =>
          h(
            'li',
            null,
            h('a', { href: a.href }, a.name),
            h('span', { class: 'muted' }, ` ${bytes(a.bytes)}`),
          ),
        ),
      ),
      h(
        'p',
        { class: 'caption' },
        'Perfetto traces (.pftrace) open in ui.perfetto.dev (Open trace file); ART traces with dmtracedump or Android Studio.',
      ),
    )
  }
}

function bytes(n: number): string {
  return n >= 1e6
    ? `${(n / 1e6).toFixed(1)} MB`
    : n >= 1e3
      ? `${(n / 1e3).toFixed(1)} kB`
      : `${n} B`
}

/**
 * A failed window's error, its code and hint once each: an EnergyError's message may already
 * start with `[CODE]` and end with its hint (`→ …`).
 */
function failedWindowText(e: { code: string; message: string; hint: string }): string {
  const text = e.message.startsWith(`[${e.code}]`) ? e.message : `[${e.code}] ${e.message}`
  return e.hint === '' || text.includes(e.hint) ? text : `${text}\n${e.hint}`
}

function windowPanel(w: HtmlWindow): HTMLElement {
  const panel = h('section', { id: 'window' }, h('h3', null, `Window “${w.label}”`))
  if (w.status === 'skipped') {
    panel.append(h('p', { class: 'banner' }, `Skipped: ${w.reason}`))
    return panel
  }
  if (w.status === 'failed') {
    append(panel, [h('pre', null, failedWindowText(w.error)), warningList(w)])
    return panel
  }
  const idleJ = w.baselinePowerW * w.durationS
  panel.append(
    facts([
      [
        'Net energy',
        w.netIntervalJ === undefined
          ? joules(w.netEnergyJ)
          : withInterval(w.netEnergyJ, w.netIntervalJ[0], w.netIntervalJ[1]),
      ],
      ['Gross energy', joules(w.grossEnergyJ)],
      ['Idle level', `${watts(w.baselinePowerW)} (${joules(idleJ)} over the window)`],
      ['Average power', watts(w.averagePowerW)],
      ['Duration', `${seconds(w.durationS)} on ${w.clock}`],
      [
        'Charged to methods',
        `${joules(w.attributedEnergyJ)} · not attributed ${joules(w.unattributedEnergyJ)}`,
      ],
      [
        'Sources',
        `power ${str(w.power)}${w.sensorRateHz === undefined ? '' : ` at ${w.sensorRateHz.toPrecision(3)} Hz`}, ${w.sampleCount} samples · execution ${w.execution === undefined ? 'none' : str(w.execution)}`,
      ],
      w.methodEnergy === undefined ? null : ["Methods' energy", str(w.methodEnergy)],
      w.device === undefined ? null : ['Device', str(w.device)],
      w.battery === undefined
        ? null
        : [
            'Battery',
            `${w.battery.percentOfCapacity.toPrecision(2)}% of capacity · ${w.battery.percentPerHour.toPrecision(3)}% an hour at this power`,
          ],
    ]),
  )
  panel.append(windowTimeline(w))
  const columns = h('div', { class: 'columns' })
  const railTotal = Math.max(w.grossEnergyJ, ...w.rails.map((r) => r[2]))
  columns.append(
    h(
      'section',
      null,
      h('h3', null, 'Rails'),
      w.rails.length === 0
        ? empty(`No rails: ${str(w.power)} reports the whole device.`)
        : barList(
            'rails',
            w.rails.map(([rail, subsystem, energyJ]) => [
              subsystem === null ? str(rail) : `${str(subsystem)} ${str(rail)}`,
              energyJ,
            ]),
            railTotal,
          ),
    ),
    h(
      'section',
      null,
      h('h3', null, 'Components'),
      w.components.length === 0
        ? empty('none reported')
        : barList(
            'components',
            w.components.map(([c, energyJ]) => [str(c), energyJ]),
            railTotal,
          ),
    ),
  )
  append(panel, [columns, warningList(w)])
  panel.append(h('h3', null, 'Where the net energy went: methods'))
  if (w.tree !== undefined) {
    const chart = h('div', { id: 'flame' })
    panel.append(
      chart,
      h(
        'p',
        { class: 'caption' },
        'Icicle of the window’s call tree: its net energy split by thread → caller → callee, widths inclusive energy (self energy is what is not under a box’s callees); asynchronous energy (radio and GPS tails) by the method that caused it; what no method was charged with apart. Small calls are folded into “other”. ' +
          'Colours: the classifier’s red/yellow/green when it ran, else app code blue, platform grey, native tan.',
      ),
      methodTable(w),
    )
    requestAnimationFrame(() => callerIcicle(chart, w))
  } else if (w.methods.length === 0) {
    panel.append(
      empty(
        `No methods: execution source ${w.execution === undefined ? 'none' : str(w.execution)}.`,
      ),
    )
  } else {
    const chart = h('div', { id: 'flame' })
    panel.append(
      chart,
      h(
        'p',
        { class: 'caption' },
        'Icicle: the window’s net energy split by package → class → method; widths are self energy (local, plus the radio and GPS tails a method caused). ' +
          'The report keeps the methods but not their call stacks, so the levels are namespaces, not callers. Colours: the classifier’s red/yellow/green when it ran.',
      ),
      methodTable(w),
    )
    requestAnimationFrame(() => icicle(chart, w))
  }
  return panel
}

function barList(
  id: string,
  rows: ReadonlyArray<readonly [string, number]>,
  total: number,
): HTMLElement {
  return h(
    'div',
    { class: 'bars', id },
    [...rows]
      .sort((a, b) => b[1] - a[1])
      .map(([label, energyJ]) => [
        h('div', null, label),
        h(
          'div',
          { class: 'bar' },
          h('span', { style: `width:${total > 0 ? Math.max(0, (100 * energyJ) / total) : 0}%` }),
        ),
        h('div', { class: 'num' }, joules(energyJ)),
      ]),
  )
}

function warningList(w: HtmlWindow): Child {
  const list = warningsOf(w)
  if (list.length === 0) return null
  return [
    h('h3', null, 'Warnings'),
    h(
      'ul',
      { class: 'warnings' },
      list.map(([code, severity, message]) =>
        h('li', null, h('code', null, str(code)), ` ${str(severity)}: ${str(message)}`),
      ),
    ),
  ]
}

function methodTable(w: HtmlMeasuredWindow): HTMLElement {
  const columns: Column<HtmlMethod>[] = [
    {
      label: 'Method',
      key: (m) => str(m[0]),
      cell: (m) => h('span', { class: 'mono name' }, str(m[0])),
    },
    {
      label: 'Colour',
      key: (m) => m[4] ?? undefined,
      cell: (m) => (m[4] === null ? '—' : chip(m[4], m[4])),
    },
    { label: 'Self', num: true, key: (m) => m[1], cell: (m) => joules(m[1]) },
    {
      label: 'Inclusive',
      num: true,
      key: (m) => m[1] + m[2],
      cell: (m) => withInterval(m[1] + m[2], m[6] ?? undefined, m[7] ?? undefined),
    },
    { label: 'Async', num: true, key: (m) => m[3], cell: (m) => (m[3] === 0 ? '—' : joules(m[3])) },
    {
      label: '% of net',
      num: true,
      key: (m) => m[1] + m[3],
      cell: (m) => (w.netEnergyJ > 0 ? percent((100 * (m[1] + m[3])) / w.netEnergyJ) : '—'),
    },
    { label: 'Attribution', key: (m) => str(m[5]), cell: (m) => str(m[5]) },
    { label: 'Calls', num: true, key: (m) => m[8] ?? undefined, cell: (m) => m[8] ?? '—' },
  ]
  const holder = sortableTable(columns, w.methods, { column: 3, descending: true })
  holder.id = 'methods-table'
  return holder
}

// ─── charts ──────────────────────────────────────────────────────────────────────────────────

const PALETTE = [
  '#4e79a7',
  '#f28e2b',
  '#59a14f',
  '#e15759',
  '#76b7b2',
  '#edc948',
  '#b07aa1',
  '#ff9da7',
  '#9c755f',
  '#bab0ac',
]

const IDLE_SERIES: UPlot.Series = {
  label: 'idle level',
  stroke: '#1d2430',
  dash: [6, 4],
  width: 1.5,
  points: { show: false },
  value: (_u, v) => (v === null ? '—' : watts(v)),
}
const POWER_SCALES: UPlot.Scales = {
  x: { time: false },
  y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] },
}
const secondsAxis = (label: string): UPlot.Axis => ({
  label,
  values: (_u, splits) => splits.map((v) => `${+v.toPrecision(4)}`),
})
const chartWidth = (container: HTMLElement): number =>
  Math.max(320, Math.min(container.clientWidth || 900, 1400))

/** Stacked per-rail average power over the test's windows, the idle level and the window edges. */
function timeline(
  container: HTMLElement,
  windows: readonly HtmlMeasuredWindow[],
  selected?: HtmlWindow,
): void {
  const sorted = [...windows].sort((a, b) => a.startS - b.startS)
  const anyRails = sorted.some((w) => w.rails.length > 0)
  const layerNames: string[] = []
  const layerOf = new Map<string, number>()
  const layer = (name: string): number => {
    let i = layerOf.get(name)
    if (i === undefined) {
      i = layerNames.length
      layerNames.push(name)
      layerOf.set(name, i)
    }
    return i
  }
  const perWindow = sorted.map((w) => {
    const values = new Map<number, number>()
    const d = w.durationS > 0 ? w.durationS : Number.NaN
    if (anyRails) {
      let railsJ = 0
      for (const [rail, subsystem, energyJ] of w.rails) {
        const i = layer(subsystem === null ? str(rail) : `${str(subsystem)} (${str(rail)})`)
        values.set(i, (values.get(i) ?? 0) + energyJ / d)
        railsJ += energyJ
      }
      const rest = w.grossEnergyJ - railsJ
      if (rest > 0.005 * w.grossEnergyJ) values.set(layer('rest of the device'), rest / d)
    } else {
      values.set(layer(`${str(w.power)} (whole device)`), w.grossEnergyJ / d)
    }
    return values
  })
  const x: number[] = []
  const layers: Array<Array<number | null>> = layerNames.map(() => [])
  const idle: Array<number | null> = []
  sorted.forEach((w, k) => {
    const end = w.startS + w.durationS
    for (const at of [w.startS, end]) {
      x.push(at)
      layers.forEach((values, i) => values.push(perWindow[k]?.get(i) ?? 0))
      idle.push(w.baselinePowerW)
    }
    const next = sorted[k + 1]
    if (next !== undefined && next.startS > end) {
      x.push((end + next.startS) / 2)
      layers.forEach((values) => values.push(null))
      idle.push(null)
    }
  })
  // Stack: series i is the sum of layers 0..i; drawn from the top down so each fill shows.
  const stacked = layers.map((_, i) =>
    x.map((_, j) => {
      let sum: number | null = 0
      for (let k = 0; k <= i; k++) {
        const v = layers[k]?.[j] ?? null
        sum = v === null || sum === null ? null : sum + v
      }
      return sum
    }),
  )
  const order = [...layerNames.keys()].reverse()
  const series: UPlot.Series[] = [
    { label: 'time', value: (_u, v) => (v === null ? '—' : seconds(v)) },
    ...order.map((i) => ({
      label: layerNames[i] ?? '',
      stroke: PALETTE[i % PALETTE.length] ?? '#888',
      fill: PALETTE[i % PALETTE.length] ?? '#888',
      width: 1,
      points: { show: false },
      value: (_u: UPlot, _v: number | null, _s: number, idx: number | null) => {
        const v = idx === null ? null : (layers[i]?.[idx] ?? null)
        return v === null ? '—' : watts(v)
      },
    })),
    IDLE_SERIES,
  ]
  const plot = new uPlot(
    {
      width: chartWidth(container),
      height: 280,
      scales: POWER_SCALES,
      axes: [
        secondsAxis('seconds from the first window'),
        { label: 'power', size: 70, values: (_u, splits) => splits.map((v) => watts(v)) },
      ],
      series,
      legend: { live: true },
      hooks: {
        draw: [
          (u) => {
            const ctx = u.ctx
            const ratio = window.devicePixelRatio || 1
            ctx.save()
            ctx.strokeStyle = '#5b6573'
            ctx.fillStyle = '#1d2430'
            ctx.setLineDash([3 * ratio, 3 * ratio])
            ctx.lineWidth = ratio
            ctx.font = `${11 * ratio}px system-ui, sans-serif`
            ctx.textAlign = 'left'
            ctx.textBaseline = 'top'
            for (const w of sorted) {
              if (w === selected && sorted.length > 1) {
                const x0 = u.valToPos(w.startS, 'x', true)
                ctx.fillStyle = 'rgba(31, 95, 191, 0.10)'
                ctx.fillRect(
                  x0,
                  u.bbox.top,
                  u.valToPos(w.startS + w.durationS, 'x', true) - x0,
                  u.bbox.height,
                )
                ctx.fillStyle = '#1d2430'
              }
              for (const at of [w.startS, w.startS + w.durationS]) {
                const px = u.valToPos(at, 'x', true)
                ctx.beginPath()
                ctx.moveTo(px, u.bbox.top)
                ctx.lineTo(px, u.bbox.top + u.bbox.height)
                ctx.stroke()
              }
              const left = u.valToPos(w.startS, 'x', true)
              const right = u.valToPos(w.startS + w.durationS, 'x', true)
              const label = w.label.length > 40 ? `${w.label.slice(0, 39)}…` : w.label
              if (right - left > ctx.measureText(label).width + 8 * ratio)
                ctx.fillText(label, left + 4 * ratio, u.bbox.top + 3 * ratio)
            }
            ctx.restore()
          },
        ],
      },
    },
    [x, ...order.map((i) => stacked[i] ?? []), idle],
    container,
  )
  container.setAttribute('role', 'img')
  container.setAttribute(
    'aria-label',
    `Power over ${sorted.length} window${sorted.length === 1 ? '' : 's'}: ${layerNames.join(', ')}`,
  )
  disposers.push(() => plot.destroy())
}

interface Tree {
  readonly name: string
  readonly label: string
  readonly kind: 'root' | 'group' | 'method' | 'rest'
  readonly tone: string
  value?: number
  method?: HtmlMethod
  children?: Tree[]
}

const JAVA = /^[A-Za-z_$][\w$]*(\.([A-Za-z_$][\w$]*|<init>|<clinit>)){2,}$/
const PLATFORM =
  /^(android|androidx|com\.android|com\.google\.android|dalvik|java|javax|jdk|kotlin|kotlinx|libcore|sun|org\.apache|okhttp3|okio)\./
const classColor = new Map(data.classification?.classes.map(([name, color]) => [name, color]) ?? [])
const packageColor = new Map(
  data.classification?.packages.map(([name, color]) => [name, color]) ?? [],
)

/** `pkg.Cls.m` → [package, class, method], or undefined for native frames. */
function splitName(name: string): [string, string, string] | undefined {
  const bare = name.replace(/\(.*$/, '')
  if (!JAVA.test(bare)) return undefined
  const cls = bare.slice(0, bare.lastIndexOf('.'))
  return [cls.slice(0, cls.lastIndexOf('.')), cls, bare]
}

function originTone(name: string): string {
  const bare = name.replace(/\(.*$/, '')
  return !JAVA.test(bare) ? 'native' : PLATFORM.test(bare) ? 'platform' : 'app'
}

/** package → class → method; leaves weighted by `weight`. */
function namespaceTree(
  rootLabel: string,
  items: ReadonlyArray<{ name: string; color: Color | null; weight: number; method?: HtmlMethod }>,
): Tree {
  const root: Tree = {
    name: rootLabel,
    label: rootLabel,
    kind: 'root',
    tone: 'group',
    children: [],
  }
  const groups = new Map<string, Tree>()
  const group = (parent: Tree, name: string, label: string, tone: string): Tree => {
    const key = `${parent.name}\u0000${name}`
    let g = groups.get(key)
    if (g === undefined) {
      g = { name, label, kind: 'group', tone, children: [] }
      groups.set(key, g)
      parent.children?.push(g)
    }
    return g
  }
  for (const item of items) {
    if (!(item.weight > 0)) continue
    const parts = splitName(item.name)
    const leaf: Tree = {
      name: item.name,
      label: parts ? item.name.slice(parts[1].lastIndexOf('.') + 1) : item.name,
      kind: 'method',
      tone: item.color ?? originTone(item.name),
      value: item.weight,
      ...(item.method === undefined ? {} : { method: item.method }),
    }
    if (parts === undefined) {
      group(root, '(native code)', '(native code)', 'native').children?.push(leaf)
      continue
    }
    const [pkg, cls] = parts
    const p = group(root, pkg, pkg || '(default package)', packageColor.get(pkg) ?? 'group')
    group(
      p,
      cls,
      cls.slice(cls.lastIndexOf('.') + 1),
      classColor.get(cls) ?? 'group',
    ).children?.push(leaf)
  }
  return root
}

/** Positioned boxes for a laid-out hierarchy; focus or hover shows a node's details. */
function drawBoxes(
  container: HTMLElement,
  nodes: ReadonlyArray<D3.HierarchyRectangularNode<Tree>>,
  height: number,
  describe: (node: D3.HierarchyRectangularNode<Tree>) => string,
  minWidth: number,
): void {
  const area = h('div', { class: 'layout', style: `height:${height}px` })
  const details = h(
    'div',
    { class: 'details', 'aria-live': 'polite' },
    'Hover or focus a box for its figures.',
  )
  for (const node of nodes) {
    const w = node.x1 - node.x0
    const ht = node.y1 - node.y0
    if (w < minWidth || ht < 1) continue
    const d = node.data
    const text = describe(node)
    const box = h(
      'div',
      {
        // Groups stay neutral, their classifier colour on the left edge; methods are filled.
        class:
          d.kind === 'group' || d.kind === 'root' ? `node group edge-${d.tone}` : `node ${d.tone}`,
        style: `left:${node.x0}px;top:${node.y0}px;width:${w}px;height:${ht}px`,
        tabindex: 0,
        title: text,
        'aria-label': text,
        'data-name': d.name,
      },
      w > 30 && ht > 12 ? d.label : '',
    )
    const show = (): void => {
      details.textContent = text
    }
    box.addEventListener('mouseenter', show)
    box.addEventListener('focus', show)
    area.append(box)
  }
  container.replaceChildren(area, details)
}

function icicle(container: HTMLElement, w: HtmlMeasuredWindow): void {
  const listed = w.methods.reduce((sum, m) => sum + m[1] + m[3], 0)
  const tree = namespaceTree(
    'net energy',
    w.methods.map((m) => ({ name: str(m[0]), color: m[4], weight: m[1] + m[3], method: m })),
  )
  const other = w.attributedEnergyJ - listed
  if (other > 1e-6 * Math.abs(w.netEnergyJ))
    tree.children?.push({
      name: 'other methods',
      label: 'methods below the report’s top list',
      kind: 'rest',
      tone: 'rest',
      value: other,
    })
  if (w.unattributedEnergyJ > 0)
    tree.children?.push({
      name: 'not attributed',
      label: 'not attributed to a method',
      kind: 'rest',
      tone: 'rest',
      value: w.unattributedEnergyJ,
    })
  const root = d3
    .hierarchy<Tree>(tree)
    .sum((d) => d.value ?? 0)
    .sort((a, b) => (b.value ?? 0) - (a.value ?? 0))
  const rows = root.height + 1
  const width = Math.max(320, container.clientWidth || 900)
  const laid = d3.partition<Tree>().size([width, rows * 26])(root)
  const total = root.value ?? 0
  drawBoxes(
    container,
    laid.descendants(),
    rows * 26,
    (node) => {
      const d = node.data
      const share =
        total > 0 ? ` · ${percent((100 * (node.value ?? 0)) / total)} of the icicle` : ''
      if (d.method !== undefined) {
        const m = d.method
        return `${d.name}: self ${joules(m[1])} · inclusive ${joules(m[1] + m[2])} · async ${joules(m[3])}${share}${m[4] === null ? '' : ` · ${m[4]}`}`
      }
      return `${d.name}: ${joules(node.value ?? 0)}${share}`
    },
    1,
  )
}

// ─── one window: the sensor's power, method activity, call tree ───────────────────────────────

/** The window's timeline: its rails' thinned power over its buckets, and its methods' lanes. */
function windowTimeline(w: HtmlMeasuredWindow): HTMLElement {
  const section = h('section', { id: 'window-timeline' }, h('h3', null, 'Power over the window'))
  const t = w.timeline
  if (t === undefined) {
    section.append(
      empty(
        w.detailOmitted
          ? 'This file left the window’s timeline out to stay small; the JSON report has it (`timeline`).'
          : 'The report has no timeline for this window (written by an older version).',
      ),
    )
    return section
  }
  const chart = h('div', { class: 'chart', id: 'power-timeline' })
  const lanes = h('div', { class: 'lanes', id: 'lanes' })
  section.append(
    chart,
    lanes,
    h(
      'p',
      { class: 'caption' },
      (str(w.power) === 'fuel-gauge'
        ? `The fuel gauge’s power (${plural(t.edgesS.length - 1, 'bucket')}, each the energy of its stretch over its length, so the area is the energy): each refresh is its period’s average, drawn over that period and spread inside it as the CPU model and the modelled screen and radios say, as attribution spread it; the idle level dashed, the window’s edges marked and the context outside it shaded. `
        : `Each rail’s power as the sensor measured it (stacked; ${plural(t.edgesS.length - 1, 'bucket')}, each the energy of its stretch over its length, so the area is the energy), the idle level dashed, the window’s edges marked and the context outside it shaded. `) +
        'Below, when the window’s busiest methods (by self energy) were running: how many threads had each on their stack; and asynchronous energy an earlier window left running.',
    ),
  )
  // The lanes need the chart's scales, which uPlot sets once it is ready.
  requestAnimationFrame(() => powerPlot(chart, w, t, (plot) => methodLanes(lanes, w, t, plot)))
  return section
}

/** Stacked steps of each rail's bucket averages, the idle level and the window's edges. */
function powerPlot(
  container: HTMLElement,
  w: HtmlMeasuredWindow,
  t: NonNullable<HtmlMeasuredWindow['timeline']>,
  onReady: (plot: UPlot) => void,
): void {
  const x = [...t.edgesS]
  const n = x.length - 1
  // A step per bucket: the last edge repeats the last bucket's value.
  const stepped = (values: readonly number[]): number[] => [...values, values[n - 1] ?? 0]
  const layers = t.series.map((s) => stepped(s[2]))
  const stacked = layers.map((_, i) =>
    x.map((_, j) => layers.slice(0, i + 1).reduce((sum, l) => sum + (l[j] ?? 0), 0)),
  )
  const names = t.series.map(([rail, subsystem]) =>
    subsystem === null ? str(rail) : `${str(subsystem)} (${str(rail)})`,
  )
  const order = [...names.keys()].reverse()
  const steps = uPlot.paths.stepped?.({ align: 1 })
  const series: UPlot.Series[] = [
    { label: 'time', value: (_u, v) => (v === null ? '—' : seconds(v)) },
    ...order.map((i) => ({
      label: names[i] ?? '',
      stroke: PALETTE[i % PALETTE.length] ?? '#888',
      fill: PALETTE[i % PALETTE.length] ?? '#888',
      width: 1,
      points: { show: false },
      ...(steps === undefined ? {} : { paths: steps }),
      value: (_u: UPlot, _v: number | null, _s: number, idx: number | null) =>
        idx === null ? '—' : watts(layers[i]?.[idx] ?? 0),
    })),
    IDLE_SERIES,
  ]
  const plot = new uPlot(
    {
      width: chartWidth(container),
      height: 260,
      scales: POWER_SCALES,
      axes: [
        secondsAxis('seconds from the window’s start'),
        {
          label: 'power',
          // Room for the lanes' method names under it.
          size: t.lanes === undefined && t.carriedIn === undefined ? 70 : 150,
          values: (_u, splits) => splits.map((v) => watts(v)),
        },
      ],
      series,
      legend: { live: true },
      hooks: { draw: [(u) => windowEdges(u, w.durationS)], ready: [onReady] },
    },
    [x, ...order.map((i) => stacked[i] ?? []), x.map(() => w.baselinePowerW)],
    container,
  )
  // What the chart holds, for readers and tests: buckets drawn, and the area inside the window.
  const top = plot.data[1] ?? []
  let areaJ = 0
  for (let j = 0; j < n; j++) {
    const a = x[j] as number
    const b = x[j + 1] as number
    if (a >= 0 && b <= w.durationS * (1 + 1e-9)) areaJ += (top[j] ?? 0) * (b - a)
  }
  container.dataset['buckets'] = String(n)
  container.dataset['series'] = String(t.series.length)
  container.dataset['areaJ'] = String(areaJ)
  container.setAttribute('role', 'img')
  container.setAttribute(
    'aria-label',
    `Power over the window “${w.label}”, ${n} buckets: ${names.join(', ')}; ${joules(areaJ)} inside the window`,
  )
  disposers.push(() => plot.destroy())
}

/** The window's edges as lines, and the context outside it shaded. */
function windowEdges(u: UPlot, durationS: number): void {
  const ctx = u.ctx
  const ratio = window.devicePixelRatio || 1
  const left = u.bbox.left
  const right = u.bbox.left + u.bbox.width
  const x0 = Math.max(left, u.valToPos(0, 'x', true))
  const x1 = Math.min(right, u.valToPos(durationS, 'x', true))
  ctx.save()
  ctx.fillStyle = 'rgba(91, 101, 115, 0.12)'
  if (x0 > left) ctx.fillRect(left, u.bbox.top, x0 - left, u.bbox.height)
  if (x1 < right) ctx.fillRect(x1, u.bbox.top, right - x1, u.bbox.height)
  ctx.strokeStyle = '#5b6573'
  ctx.setLineDash([3 * ratio, 3 * ratio])
  ctx.lineWidth = ratio
  for (const px of [x0, x1]) {
    ctx.beginPath()
    ctx.moveTo(px, u.bbox.top)
    ctx.lineTo(px, u.bbox.top + u.bbox.height)
    ctx.stroke()
  }
  ctx.restore()
}

/** One row per method (and per carried-in component) aligned with the power chart's x axis. */
function methodLanes(
  container: HTMLElement,
  w: HtmlMeasuredWindow,
  t: NonNullable<HtmlMeasuredWindow['timeline']>,
  plot: UPlot,
): void {
  const ratio = window.devicePixelRatio || 1
  const offset = plot.bbox.left / ratio
  const pos = (s: number): number => plot.valToPos(s, 'x')
  const colorOf = new Map(w.methods.map((m) => [m[0], m[4]]))
  const rows: HTMLElement[] = []
  const row = (label: string, title: string, cells: HTMLElement[], tone: string): HTMLElement =>
    h(
      'div',
      { class: `lane ${tone}`, title },
      h('span', { class: 'lane-label', style: `width:${offset}px` }, label),
      h('div', { class: 'lane-track', style: `width:${plot.bbox.width / ratio}px` }, cells),
    )
  for (const [method, busy] of t.lanes ?? []) {
    const name = str(method)
    const cells: HTMLElement[] = []
    let peak = 0
    busy.forEach((b, i) => {
      peak = Math.max(peak, b)
      if (!(b > 0)) return
      const a = pos(t.edgesS[i] as number)
      const z = pos(t.edgesS[i + 1] as number)
      cells.push(
        h('span', {
          class: 'busy',
          style: `left:${a}px;width:${Math.max(1, z - a)}px;opacity:${Math.min(1, 0.15 + 0.85 * b)}`,
        }),
      )
    })
    const short = name.slice(name.lastIndexOf('.', name.lastIndexOf('.') - 1) + 1)
    rows.push(
      row(
        short,
        `${name}: at most ${peak.toFixed(2)} threads running it in a bucket`,
        cells,
        colorOf.get(method) ?? originTone(name),
      ),
    )
  }
  for (const [component, rail, energyJ, untilS, method, from] of t.carriedIn ?? []) {
    const a = pos(0)
    const z = pos(untilS)
    const who =
      method === null
        ? 'already on when the window opened (started before it, by whom is not known)'
        : `left on by ${str(method)} in “${str(from)}”`
    rows.push(
      row(
        `${str(component)} carried in`,
        `${str(component)} (${str(rail)}) ${who}: ${joules(energyJ)} in this window`,
        [h('span', { class: 'carried', style: `left:${a}px;width:${Math.max(1, z - a)}px` })],
        'carried-in',
      ),
    )
  }
  if (rows.length === 0) {
    container.append(
      empty(
        `No method activity: execution source ${w.execution === undefined ? 'none' : str(w.execution)}.`,
      ),
    )
    return
  }
  container.append(...rows)
}

/** The call tree, under a root of the window's net energy with what no method got beside it. */
function callerIcicle(container: HTMLElement, w: HtmlMeasuredWindow): void {
  const colorOf = new Map(w.methods.map((m) => [str(m[0]), m[4]]))
  const convert = (node: NonNullable<HtmlMeasuredWindow['tree']>): Tree => {
    const [name, kind, selfJ, children] = node
    const label = str(name)
    const k = str(kind)
    const parts = k === 'method' ? splitName(label) : undefined
    return {
      name: label,
      label: parts ? label.slice(parts[1].lastIndexOf('.') + 1) : label,
      kind: k === 'other' ? 'rest' : k === 'method' ? 'method' : 'group',
      tone:
        k === 'other'
          ? 'rest'
          : k === 'method'
            ? (colorOf.get(label) ??
              (parts === undefined ? undefined : classColor.get(parts[1])) ??
              originTone(label))
            : 'group',
      value: Math.max(0, selfJ),
      ...(children === undefined ? {} : { children: children.map(convert) }),
    }
  }
  const tree = convert(w.tree as NonNullable<HtmlMeasuredWindow['tree']>)
  const chargedJ = sumTree(w.tree as NonNullable<HtmlMeasuredWindow['tree']>)
  const rest = w.netEnergyJ - chargedJ
  const root: Tree = {
    name: 'net energy',
    label: 'net energy',
    kind: 'root',
    tone: 'group',
    children: [
      ...(tree.children ?? []),
      ...(rest > 1e-9 * Math.abs(w.netEnergyJ)
        ? [
            {
              name: 'not attributed',
              label: 'not attributed to a method',
              kind: 'rest' as const,
              tone: 'rest',
              value: rest,
            },
          ]
        : []),
    ],
  }
  const laid = d3
    .hierarchy<Tree>(root)
    .sum((d) => d.value ?? 0)
    .sort((a, b) => (b.value ?? 0) - (a.value ?? 0))
  const rows = laid.height + 1
  const rowPx = rows > 16 ? 18 : 24
  const width = Math.max(320, container.clientWidth || 900)
  const parted = d3.partition<Tree>().size([width, rows * rowPx])(laid)
  const total = laid.value ?? 0
  container.dataset['rootJ'] = String(total)
  drawBoxes(
    container,
    parted.descendants(),
    rows * rowPx,
    (node) => {
      const d = node.data
      const inclusive = node.value ?? 0
      const share = total > 0 ? ` · ${percent((100 * inclusive) / total)} of the net energy` : ''
      const self = d.kind === 'method' ? ` · self ${joules(d.value ?? 0)}` : ''
      return `${d.name}: ${d.kind === 'method' ? 'inclusive ' : ''}${joules(inclusive)}${self}${share}${d.tone === 'red' || d.tone === 'yellow' || d.tone === 'green' ? ` · ${d.tone}` : ''}`
    },
    1,
  )
}

function sumTree(node: NonNullable<HtmlMeasuredWindow['tree']>): number {
  return node[2] + (node[3] ?? []).reduce((s, c) => s + sumTree(c), 0)
}

// ─── methods ─────────────────────────────────────────────────────────────────────────────────

interface Aggregate {
  readonly name: string
  selfJ: number
  inclusiveJ: number
  asyncJ: number
  windows: number
  tests: number
  lastTest: number
  color: Color | null
}

let aggregates: { methods: Aggregate[]; classes: Aggregate[]; packages: Aggregate[] } | undefined

function aggregate(): NonNullable<typeof aggregates> {
  if (aggregates !== undefined) return aggregates
  const maps = [
    new Map<string, Aggregate>(),
    new Map<string, Aggregate>(),
    new Map<string, Aggregate>(),
  ] as const
  const add = (
    map: Map<string, Aggregate>,
    name: string,
    m: HtmlMethod,
    test: number,
    color: Color | null,
  ): void => {
    let a = map.get(name)
    if (a === undefined) {
      a = { name, selfJ: 0, inclusiveJ: 0, asyncJ: 0, windows: 0, tests: 0, lastTest: -1, color }
      map.set(name, a)
    }
    a.selfJ += m[1]
    a.inclusiveJ += m[1] + m[2]
    a.asyncJ += m[3]
    a.windows++
    if (a.lastTest !== test) {
      a.tests++
      a.lastTest = test
    }
    if (a.color === null) a.color = color
  }
  tests.forEach((t, i) => {
    for (const w of measured(t))
      for (const m of w.methods) {
        const name = str(m[0])
        add(maps[0], name, m, i, m[4])
        const parts = splitName(name)
        if (parts === undefined) continue
        add(maps[1], parts[1], m, i, (classColor.get(parts[1]) as Color | undefined) ?? null)
        add(maps[2], parts[0], m, i, (packageColor.get(parts[0]) as Color | undefined) ?? null)
      }
  })
  const bySelf = (a: Aggregate, b: Aggregate): number => b.selfJ - a.selfJ
  aggregates = {
    methods: [...maps[0].values()].sort(bySelf),
    classes: [...maps[1].values()].sort(bySelf),
    packages: [...maps[2].values()].sort(bySelf),
  }
  return aggregates
}

let methodsLevel: 'methods' | 'classes' | 'packages' = 'methods'

function methodsView(root: HTMLElement): void {
  const all = aggregate()
  const c = data.classification
  root.append(
    h(
      'p',
      null,
      c === undefined
        ? prose(
            'The classifier did not run for this report (reporter option `classify`): a method shows the colour its window carries, if any, else its origin (blue app, grey platform, brown native). ',
          )
        : [
            `Classifier ${c.preset} (error vector ${c.errorVector}${c.thresholdW === null ? '' : `, threshold ${watts(c.thresholdW)}`}): project `,
            chip(c.project, c.project),
            `, ${c.excessive} energy-greedy test${c.excessive === 1 ? '' : 's'}. `,
          ],
      'Energies are summed over every window of the run; each window lists only its top methods.',
    ),
  )
  if (all.methods.length === 0) {
    root.append(empty('No window measured methods (no execution source).'))
    return
  }
  const top = all.methods.slice(0, 400)
  const restJ = all.methods.slice(400).reduce((sum, a) => sum + a.selfJ + a.asyncJ, 0)
  const tree = namespaceTree(
    'all methods',
    top.map((a) => ({ name: a.name, color: a.color, weight: a.selfJ + a.asyncJ })),
  )
  if (restJ > 0)
    tree.children?.push({
      name: 'other methods',
      label: `${all.methods.length - top.length} more methods`,
      kind: 'rest',
      tone: 'rest',
      value: restJ,
    })
  const chart = h('div', { id: 'treemap' })
  root.append(
    h('h2', null, 'Treemap: self energy (local + async) by package, class and method'),
    chart,
  )
  requestAnimationFrame(() => {
    const width = Math.max(320, chart.clientWidth || 900)
    const height = 440
    const laid = d3
      .treemap<Tree>()
      .size([width, height])
      .paddingTop((node) => (node.depth > 0 && node.children ? 15 : 0))
      .paddingInner(1)
      .round(true)(
      d3
        .hierarchy<Tree>(tree)
        .sum((d) => d.value ?? 0)
        .sort((a, b) => (b.value ?? 0) - (a.value ?? 0)),
    )
    drawBoxes(
      chart,
      laid.descendants().filter((n) => n.depth > 0),
      height,
      (node) => `${node.data.name}: ${joules(node.value ?? 0)} self`,
      2,
    )
  })

  const toggle = h('div', { class: 'toggle', role: 'group', 'aria-label': 'Level' })
  const holder = h('div', { id: 'methods-aggregate' })
  const levels = [
    ['methods', 'Methods', 'Method'],
    ['classes', 'Classes', 'Class'],
    ['packages', 'Packages', 'Package'],
  ] as const
  const draw = (): void => {
    toggle.replaceChildren(
      ...levels.map(([level, label]) =>
        h(
          'button',
          {
            type: 'button',
            'aria-pressed': String(level === methodsLevel),
            onclick: () => {
              methodsLevel = level
              draw()
              toggle.querySelector<HTMLButtonElement>('[aria-pressed=true]')?.focus()
            },
          },
          `${label} (${all[level].length})`,
        ),
      ),
    )
    const columns: Column<Aggregate>[] = [
      {
        label: levels.find(([l]) => l === methodsLevel)?.[2] ?? 'Name',
        key: (a) => a.name,
        cell: (a) => h('span', { class: 'mono name' }, a.name),
      },
      {
        label: 'Colour',
        key: (a) => a.color ?? undefined,
        cell: (a) => (a.color === null ? '—' : chip(a.color, a.color)),
      },
      { label: 'Self', num: true, key: (a) => a.selfJ, cell: (a) => joules(a.selfJ) },
      {
        label: 'Inclusive',
        num: true,
        key: (a) => a.inclusiveJ,
        cell: (a) => joules(a.inclusiveJ),
        title: 'summed over windows; for classes and packages, nested calls count more than once',
      },
      {
        label: 'Async',
        num: true,
        key: (a) => a.asyncJ,
        cell: (a) => (a.asyncJ === 0 ? '—' : joules(a.asyncJ)),
      },
      { label: 'Windows', num: true, key: (a) => a.windows, cell: (a) => a.windows },
      { label: 'Tests', num: true, key: (a) => a.tests, cell: (a) => a.tests },
    ]
    holder.replaceChildren(
      sortableTable(columns, all[methodsLevel], { column: 2, descending: true }, 500),
    )
  }
  root.append(h('h2', null, 'Table'), toggle, holder)
  draw()
}

// ─── budgets ─────────────────────────────────────────────────────────────────────────────────

function budgetsView(root: HTMLElement): void {
  const b = data.budgets
  if (b === undefined) {
    root.append(
      empty(
        'No budget file was read or written. Run `vitest -u` to write energy-budgets.json from this run’s measurements, review it like a snapshot, and commit it.',
      ),
    )
    return
  }
  root.append(
    h(
      'p',
      { id: 'budget-summary' },
      b.updated
        ? `This run wrote ${b.file} (vitest -u): review the changes below like a snapshot diff before committing.`
        : written(b) > 0
          ? `This run wrote ${written(b)} new budget${written(b) === 1 ? '' : 's'} to ${b.file} for tests that asked for one and had none: review ${written(b) === 1 ? 'it' : 'them'} like a new snapshot before committing. Checked the others: `
          : `Checked against ${b.file}: `,
      b.updated ? null : verdictChips(b, 'without a budget'),
    ),
  )
  const value = (v: HtmlBudgetChange['before']): string =>
    v === undefined
      ? '—'
      : `${joules(v.energyJ)}${v.measuredEnergyJ === undefined ? '' : ` (measured ${joules(v.measuredEnergyJ)})`}`
  const columns: Column<HtmlBudgetChange>[] = [
    {
      label: 'Change',
      key: (e) => e.kind,
      cell: (e) =>
        chip(
          e.kind === 'obsolete' && b.updated ? 'removed' : e.kind,
          e.kind === 'added' ? 'green' : e.kind === 'changed' ? 'yellow' : 'red',
        ),
    },
    {
      label: 'Test',
      key: (e) => e.name,
      cell: (e) => [
        e.test === undefined ? h('span', { class: 'name' }, e.name) : testLink(e.test),
        h('div', { class: 'small muted' }, e.file),
      ],
    },
    { label: 'Device', key: (e) => e.device, cell: (e) => (e.device === '*' ? 'any' : e.device) },
    { label: 'Before', num: true, key: (e) => e.before?.energyJ, cell: (e) => value(e.before) },
    { label: 'After', num: true, key: (e) => e.after?.energyJ, cell: (e) => value(e.after) },
    {
      label: 'Δ',
      num: true,
      key: (e) => (e.before && e.after ? e.after.energyJ - e.before.energyJ : undefined),
      cell: (e) =>
        e.before && e.after
          ? `${signed(e.after.energyJ - e.before.energyJ, joules)}${e.before.energyJ > 0 ? ` (${signed((100 * (e.after.energyJ - e.before.energyJ)) / e.before.energyJ, percent)})` : ''}`
          : '—',
    },
  ]
  root.append(
    h(
      'h2',
      null,
      b.updated
        ? 'What this run changed'
        : written(b) === 0
          ? 'Obsolete entries'
          : b.entries.some((e) => e.kind === 'obsolete')
            ? 'New budgets and obsolete entries'
            : 'New budgets',
    ),
  )
  // A run that checks lists the budgets it wrote as new (`added`) and the obsolete ones.
  const entries = b.updated ? b.entries : b.entries.filter((e) => e.kind !== 'changed')
  if (entries.length === 0)
    root.append(
      empty(
        b.updated
          ? 'Nothing changed.'
          : 'None: every entry belongs to a test that ran or to a file that did not run.',
      ),
    )
  else {
    const t = sortableTable(columns, entries)
    t.id = 'budget-changes'
    root.append(t)
    if (!b.updated && entries.some((e) => e.kind === 'obsolete'))
      root.append(h('p', { class: 'caption' }, prose('`vitest -u` removes the obsolete ones.')))
  }

  const withBudget = [...tests.keys()].filter((i) => tests[i]?.budget !== undefined)
  const useColumns: Column<number>[] = [
    { label: 'Test', key: (i) => tests[i]?.name, cell: (i) => testLink(i) },
    {
      label: 'Figure',
      num: true,
      key: (i) => tests[i]?.budget?.valueJ,
      cell: (i) => {
        const f = tests[i]?.budgetFigure
        return f === undefined ? '—' : figureText(f)
      },
    },
    {
      label: 'Use of budget',
      num: true,
      key: (i) => budgetUse(tests[i] as HtmlTest),
      cell: (i) => budgetCell(tests[i] as HtmlTest),
    },
    {
      label: 'Device',
      key: (i) => tests[i]?.budget?.device,
      cell: (i) => (tests[i]?.budget?.device === '*' ? 'any' : (tests[i]?.budget?.device ?? '')),
    },
  ]
  root.append(h('h2', null, `Tests by use of their budget (${withBudget.length})`))
  if (withBudget.length === 0) root.append(empty('No test of this run has a budget.'))
  else {
    const t = sortableTable(useColumns, withBudget, { column: 2, descending: true }, 200)
    t.id = 'budget-use'
    root.append(t)
  }
  // The summary's count: tests that asked for a budget, measured above their noise, have none.
  const missing = b.withoutBudget
  if (!b.updated && missing.length > 0) {
    root.append(
      h('h2', null, `Tests without a budget (${missing.length})`),
      h(
        'p',
        { class: 'caption' },
        prose(
          'They asked for one (`toStayWithinBudget()` or `checkBudgets`; Jest results sent with `recordEnergy()` cannot say, and count) and measured above their noise: `vitest -u` (`jest -u`) writes theirs. Tests that never asked are reported, not budgeted.',
        ),
      ),
      h(
        'ul',
        { id: 'budget-missing' },
        missing.slice(0, 200).map((i) => h('li', null, testLink(i))),
      ),
    )
  }
}

// ─── start ───────────────────────────────────────────────────────────────────────────────────

function start(): void {
  const s = data.summary
  document.body.append(
    h(
      'header',
      { class: 'top' },
      h('h1', null, 'Energy report'),
      h(
        'span',
        { class: 'muted' },
        `${s.tests} tests · ${joules(s.totalNetEnergyJ)} net over ${s.measuredWindows} windows`,
      ),
      data.createdAt === undefined
        ? null
        : h('span', { class: 'when' }, new Date(data.createdAt).toLocaleString()),
    ),
    tabBar(),
    main,
  )
  window.addEventListener('hashchange', render)
  render()
  document.documentElement.dataset['ready'] = 'true'
}

start()
