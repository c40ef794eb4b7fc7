// The three browser engines the HTML report is checked in, from Debian's packages and driven with
// no browser download: Chromium (`chromium`) and Firefox (`firefox-esr`, WebDriver BiDi) through
// puppeteer-core, WebKit (`webkit2gtk-driver`: WebKitWebDriver and WebKitGTK's MiniBrowser)
// through WebdriverIO. MiniBrowser has no headless mode, so it draws on an Xvfb display.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import puppeteer from 'puppeteer-core'
import { Key as WebDriverKey, remote } from 'webdriverio'
import { freePort } from '../../../src/session/appium-server.js'
import { Page } from './_page.js'

export interface Engine {
  readonly name: 'Chromium' | 'Firefox' | 'WebKit'
  /** Why it cannot run on this machine (the missing command and its package), if it cannot. */
  readonly missing: string | undefined
  launch(): Promise<Browser>
}

export interface Browser {
  /** A page of 1280 × 900 CSS pixels. */
  newPage(): Promise<Page>
  close(): Promise<void>
}

const VIEWPORT = { width: 1280, height: 900 }

const firstFile = (...paths: (string | undefined)[]): string | undefined =>
  paths.find((p): p is string => p !== undefined && p !== '' && existsSync(p))

const chromiumPath = firstFile(
  process.env['CHROMIUM'],
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
)
const firefoxPath = firstFile(process.env['FIREFOX'], '/usr/bin/firefox-esr', '/usr/bin/firefox')
const WEBKIT_DRIVER = '/usr/bin/WebKitWebDriver'
const XVFB = '/usr/bin/Xvfb'
/** Debian installs MiniBrowser under the multiarch library folder. */
const miniBrowserPath = firstFile(
  process.env['MINIBROWSER'],
  ...(existsSync('/usr/lib') ? readdirSync('/usr/lib') : []).map(
    (dir) => `/usr/lib/${dir}/webkit2gtk-4.1/MiniBrowser`,
  ),
)
const display = process.env['DISPLAY']

export const ENGINES: readonly Engine[] = [
  {
    name: 'Chromium',
    missing:
      chromiumPath === undefined
        ? 'no chromium at /usr/bin/chromium or $CHROMIUM (apt-get install chromium)'
        : undefined,
    launch: () => launchPuppeteer('chrome', chromiumPath ?? ''),
  },
  {
    name: 'Firefox',
    missing:
      firefoxPath === undefined
        ? 'no firefox-esr at /usr/bin/firefox-esr or $FIREFOX (apt-get install firefox-esr)'
        : undefined,
    launch: () => launchPuppeteer('firefox', firefoxPath ?? ''),
  },
  {
    name: 'WebKit',
    missing: !existsSync(WEBKIT_DRIVER)
      ? `no ${WEBKIT_DRIVER} (apt-get install webkit2gtk-driver)`
      : miniBrowserPath === undefined
        ? 'no /usr/lib/<arch>/webkit2gtk-4.1/MiniBrowser or $MINIBROWSER (apt-get install webkit2gtk-driver)'
        : !existsSync(XVFB) && (display === undefined || display === '')
          ? `no ${XVFB} and no $DISPLAY for MiniBrowser, which has no headless mode (apt-get install xvfb)`
          : undefined,
    launch: () => launchWebKit(miniBrowserPath ?? ''),
  },
]

async function launchPuppeteer(
  browser: 'chrome' | 'firefox',
  executablePath: string,
): Promise<Browser> {
  const instance = await puppeteer.launch({
    browser,
    executablePath,
    headless: true,
    // As Playwright does by default: the sandbox needs user namespaces that containers and root
    // lack, and the page is our own report.
    args: browser === 'chrome' ? ['--no-sandbox'] : [],
    defaultViewport: VIEWPORT,
  })
  return {
    async newPage() {
      const page = await instance.newPage()
      const problems: string[] = []
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warn') problems.push(`${m.type()}: ${m.text()}`)
      })
      page.on('pageerror', (e) =>
        problems.push(`page error: ${e instanceof Error ? e.message : String(e)}`),
      )
      return new Page({
        goto: async (url) => void (await page.goto(url)),
        run: (expression) => page.evaluate(expression),
        clickAt: (x, y) => page.mouse.click(x, y),
        press: (key) => page.keyboard.press(key),
        type: (text) => page.keyboard.type(text),
        screenshot: async (path) =>
          void (await page.screenshot({ path: path as `${string}.png`, fullPage: true })),
        problems: () => Promise.resolve(problems),
        close: () => page.close(),
      })
    },
    close: () => instance.close(),
  }
}

/**
 * What the page reports in WebKit. WebKitWebDriver speaks WebDriver classic only, which has no
 * console, and an automation session's page never writes its console to stdout; so the page
 * WebKit opens is a copy of the report with this script first in its head, before the CSP (which
 * applies to what follows it), recording console errors and warnings, uncaught errors, rejected
 * promises and CSP violations. Browser messages outside these (none that the other two engines
 * have shown for this page) go unseen.
 */
const PROBLEM_HOOK = `(() => {
  const problems = (window.__e2eProblems = [])
  for (const level of ['error', 'warn']) {
    const original = console[level]
    console[level] = (...args) => {
      problems.push(level + ': ' + args.map(String).join(' '))
      original.apply(console, args)
    }
  }
  addEventListener('error', (e) => problems.push('page error: ' + e.message))
  addEventListener('unhandledrejection', (e) => problems.push('unhandled rejection: ' + String(e.reason)))
  addEventListener('securitypolicyviolation', (e) =>
    problems.push('CSP: ' + e.effectiveDirective + ' blocked ' + e.blockedURI))
})()`

async function launchWebKit(miniBrowser: string): Promise<Browser> {
  const children: ChildProcess[] = []
  const stop = async (): Promise<void> => {
    for (const child of [...children].reverse()) await ended(child)
  }
  try {
    const screen = existsSync(XVFB) ? await startXvfb(children) : (display ?? '')
    const port = await freePort()
    const driver = spawn(WEBKIT_DRIVER, [`--port=${port}`], {
      env: { ...process.env, DISPLAY: screen },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    children.push(driver)
    let driverErr = ''
    driver.stderr?.on('data', (d: Buffer) => void (driverErr += d.toString()))
    await listening(port, driver)
    // WebdriverIO's types do not list WebKitGTK's vendor capability.
    const capabilities = {
      browserName: 'MiniBrowser',
      // No BiDi in this WebKitWebDriver: asking for it fails the session.
      'wdio:enforceWebDriverClassic': true,
      'webkitgtk:browserOptions': { binary: miniBrowser, args: ['--automation'] },
    }
    const session = await remote({
      hostname: '127.0.0.1',
      port,
      path: '/',
      logLevel: 'error',
      connectionRetryCount: 0,
      capabilities,
    }).catch((e: unknown) => {
      throw new Error(`WebKitWebDriver on ${screen} gave no session: ${String(e)}\n${driverErr}`)
    })
    // The window's size includes MiniBrowser's frame: size it so the page gets the viewport.
    await session.setWindowSize(VIEWPORT.width, VIEWPORT.height)
    const inner = await session.execute(() => [window.innerWidth, window.innerHeight])
    const frame = {
      width: 2 * VIEWPORT.width - (inner[0] ?? VIEWPORT.width),
      height: 2 * VIEWPORT.height - (inner[1] ?? VIEWPORT.height),
    }
    await session.setWindowSize(frame.width, frame.height)
    /** Resizes the window for a page this tall, once it has laid out and painted at that size. */
    const viewportHeight = async (height: number): Promise<void> => {
      await session.setWindowSize(frame.width, frame.height + height - VIEWPORT.height)
      await session.waitUntil(() => session.execute((h) => window.innerHeight === h, height), {
        timeout: 5000,
        timeoutMsg: `WebKit's page did not become ${height} px tall`,
      })
      await session.executeAsync((done: () => void) =>
        requestAnimationFrame(() => requestAnimationFrame(() => done())),
      )
    }

    const copies = new Map<string, string>()
    /** The hooked copy of a report file, beside it so its relative links still work. */
    const hooked = async (url: string): Promise<string> => {
      const u = new URL(url)
      if (u.protocol !== 'file:') return url
      const file = fileURLToPath(u)
      let copy = copies.get(file)
      if (copy === undefined) {
        const html = await readFile(file, 'utf8')
        if (!html.includes('<head>')) throw new Error(`${file} has no <head> to hook`)
        copy = file.replace(/\.html$/, '') + '.webkit-e2e.html'
        await writeFile(copy, html.replace('<head>', `<head><script>${PROBLEM_HOOK}</script>`))
        copies.set(file, copy)
      }
      return `${pathToFileURL(copy).href}${u.hash}`
    }
    return {
      async newPage() {
        // One window for the session, blank between pages (a page left open by a failed check
        // too), so that no view starts as a same-document navigation from the last.
        await session.url('about:blank')
        const problems: string[] = []
        const collect = async (): Promise<void> => {
          const found = await session.execute(
            () => (window as { __e2eProblems?: string[] }).__e2eProblems?.splice(0) ?? [],
          )
          problems.push(...found)
        }
        return new Page({
          goto: async (url) => {
            await collect()
            await session.url(await hooked(url))
          },
          run: (expression) => session.execute(`return ${expression}`),
          clickAt: (x, y) =>
            session
              .action('pointer', { parameters: { pointerType: 'mouse' } })
              .move({ x: Math.round(x), y: Math.round(y), origin: 'viewport' })
              .down()
              .up()
              .perform(),
          press: (key) => session.keys([WebDriverKey[key]]),
          type: (text) => session.keys(text),
          screenshot: async (path) => {
            // WebKit's screenshots stop at the viewport: grow the window to the page for one.
            const height = await session.execute(() => document.documentElement.scrollHeight)
            await viewportHeight(Math.max(VIEWPORT.height, height))
            await session.saveScreenshot(path)
            await viewportHeight(VIEWPORT.height)
          },
          problems: async () => {
            await collect()
            return problems
          },
          close: async () => void (await session.url('about:blank')),
        })
      },
      async close() {
        await session.deleteSession().catch(() => undefined)
        await stop()
      },
    }
  } catch (e) {
    await stop()
    throw e
  }
}

/** Starts Xvfb on a free display (it picks the number and writes it to fd 3). */
async function startXvfb(children: ChildProcess[]): Promise<string> {
  const xvfb = spawn(
    XVFB,
    ['-displayfd', '3', '-screen', '0', '1600x1200x24', '-nolisten', 'tcp'],
    {
      stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    },
  )
  children.push(xvfb)
  let err = ''
  xvfb.stderr?.on('data', (d: Buffer) => void (err += d.toString()))
  return new Promise((resolve, reject) => {
    xvfb.stdio[3]?.once('data', (d: Buffer) => resolve(`:${d.toString().trim()}`))
    xvfb.once('exit', (code) => reject(new Error(`Xvfb exited (${code}) before a display: ${err}`)))
  })
}

/** Waits until the driver answers its status request. */
async function listening(port: number, driver: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000
  for (;;) {
    if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driver.exitCode})`)
    const up = await fetch(`http://127.0.0.1:${port}/status`).then(
      (r) => r.ok,
      () => false,
    )
    if (up) return
    if (Date.now() > deadline) throw new Error(`WebKitWebDriver not listening on ${port} in 10 s`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

async function ended(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exit = new Promise((resolve) => child.once('exit', resolve))
  child.kill()
  await exit
}
