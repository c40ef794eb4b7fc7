// One page API for the HTML report's browser checks, whatever drives the browser: the few
// Playwright-style calls they use (locators, keyboard, evaluate), built on what every driver has —
// run an expression in the page, click at a point, press keys, take a screenshot. Reads happen in
// the page, so Chromium, Firefox (puppeteer-core) and WebKit (WebDriver) answer the same question.

/** What a driver does for a page; everything else is built on it. */
export interface Tab {
  /** Navigates (a URL differing only in its hash is a same-document navigation, as in a user's browser). */
  goto(url: string): Promise<void>
  /** The value of a JavaScript expression evaluated in the page (JSON-serialisable). */
  run(expression: string): Promise<unknown>
  /** A real mouse click at viewport coordinates. */
  clickAt(x: number, y: number): Promise<void>
  /** Presses one key at the focused element. */
  press(key: Key): Promise<void>
  /** Types text at the focused element, key by key. */
  type(text: string): Promise<void>
  /** A PNG of the whole page. */
  screenshot(path: string): Promise<void>
  /** Console errors and warnings, uncaught errors and CSP violations since the tab opened. */
  problems(): Promise<string[]>
  close(): Promise<void>
}

export type Key = 'Enter' | 'ArrowRight' | 'ArrowLeft' | 'Home' | 'End' | 'Backspace'

/** How long a locator waits for its element to appear, as Playwright's actions do. */
const WAIT_MS = 10_000

export class Page {
  constructor(private readonly tab: Tab) {}

  readonly keyboard = { press: (key: Key): Promise<void> => this.tab.press(key) }

  goto(url: string): Promise<void> {
    return this.tab.goto(url)
  }

  locator(selector: string, options: { hasText?: string } = {}): Locator {
    return new Locator(this.tab, { selector, hasText: options.hasText ?? null, index: null })
  }

  /** Waits until an element matches. */
  async waitForSelector(selector: string): Promise<void> {
    await this.locator(selector).first().wait()
  }

  /** Calls `fn` in the page with JSON arguments (it must not close over anything). */
  async evaluate<R, A extends unknown[]>(fn: (...args: A) => R, ...args: A): Promise<Awaited<R>> {
    return (await this.tab.run(`(${String(fn)})(...${JSON.stringify(args)})`)) as Awaited<R>
  }

  screenshot(path: string): Promise<void> {
    return this.tab.screenshot(path)
  }

  problems(): Promise<string[]> {
    return this.tab.problems()
  }

  close(): Promise<void> {
    return this.tab.close()
  }
}

interface Target {
  readonly selector: string
  /** Keeps the elements whose text contains this (case-sensitive). */
  readonly hasText: string | null
  /** One of the matches; null: the only match (more than one is an error, as in Playwright). */
  readonly index: number | null
}

export class Locator {
  constructor(
    private readonly tab: Tab,
    private readonly target: Target,
  ) {}

  first(): Locator {
    return this.nth(0)
  }

  nth(index: number): Locator {
    return new Locator(this.tab, { ...this.target, index })
  }

  count(): Promise<number> {
    return this.all((els) => els.length)
  }

  allInnerTexts(): Promise<string[]> {
    return this.all((els) => els.map((e) => (e as HTMLElement).innerText))
  }

  evaluateAll<R>(fn: (els: Element[]) => R): Promise<Awaited<R>> {
    return this.all(fn)
  }

  innerText(): Promise<string> {
    return this.one((e) => (e as HTMLElement).innerText)
  }

  textContent(): Promise<string | null> {
    return this.one((e) => e.textContent)
  }

  getAttribute(name: string): Promise<string | null> {
    return this.one((e, attribute) => e.getAttribute(attribute), name)
  }

  evaluate<R>(fn: (el: Element) => R): Promise<Awaited<R>> {
    return this.one(fn)
  }

  async focus(): Promise<void> {
    await this.one((e) => void (e as HTMLElement).focus())
  }

  /** Scrolls the element into view and clicks its centre with the mouse. */
  async click(): Promise<void> {
    const at = await this.one((e) => {
      e.scrollIntoView({ block: 'center', inline: 'center' })
      const r = e.getBoundingClientRect()
      return { x: r.left + r.width / 2, y: r.top + r.height / 2 }
    })
    await this.tab.clickAt(at.x, at.y)
  }

  /** Replaces a text field's value by typing, as a user would. */
  async fill(text: string): Promise<void> {
    await this.one((e) => {
      ;(e as HTMLInputElement).focus()
      ;(e as HTMLInputElement).select()
    })
    if (text === '') await this.tab.press('Backspace')
    else await this.tab.type(text)
  }

  /** Chooses an option by value and fires the events a user's choice fires. */
  async selectOption(value: string): Promise<void> {
    await this.one((e, v) => {
      ;(e as HTMLSelectElement).value = v
      e.dispatchEvent(new Event('input', { bubbles: true }))
      e.dispatchEvent(new Event('change', { bubbles: true }))
    }, value)
  }

  /** Waits until the element exists. */
  async wait(): Promise<void> {
    const deadline = Date.now() + WAIT_MS
    for (;;) {
      const n = await this.count()
      if (n > (this.target.index ?? 0)) return
      if (Date.now() > deadline)
        throw new Error(`no element matches ${this.describe()} after ${WAIT_MS} ms`)
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
  }

  private all<R>(fn: (els: Element[]) => R): Promise<Awaited<R>> {
    return this.run(`(${String(fn)})(els)`)
  }

  private async one<R, A extends unknown[]>(
    fn: (el: Element, ...args: A) => R,
    ...args: A
  ): Promise<Awaited<R>> {
    await this.wait()
    if (this.target.index === null && (await this.count()) > 1)
      throw new Error(`${this.describe()} matches more than one element`)
    const call = `(${String(fn)})(els[${this.target.index ?? 0}], ...${JSON.stringify(args)})`
    return this.run<Awaited<R>>(call)
  }

  /** Runs `body` in the page with `els`, the elements the locator matches. */
  private async run<R>(body: string): Promise<R> {
    const { selector, hasText } = this.target
    return (await this.tab.run(`(() => {
      const els = Array.from(document.querySelectorAll(${JSON.stringify(selector)}))
        .filter((e) => ${JSON.stringify(hasText)} === null || (e.textContent ?? '').includes(${JSON.stringify(hasText)}))
      return ${body}
    })()`)) as R
  }

  private describe(): string {
    const { selector, hasText, index } = this.target
    return `${selector}${hasText === null ? '' : ` with text “${hasText}”`}${index === null ? '' : ` #${index}`}`
  }
}
