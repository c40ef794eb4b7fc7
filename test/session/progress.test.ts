// A test process's progress (src/session/progress.ts): plain lines, once each, when no reporter
// listens; phases over the socket, and no plain line, when one does.
import { createServer } from 'node:net'
import { afterEach, describe, expect, test, vi } from 'vitest'
import { listenForProgress, LiveStatus } from '../../reporter/progress.js'
import { plainScreen } from '../../reporter/screen.js'
import { ProgressChannel, TestProgress } from '../../src/session/progress.js'

const subject = { phone: 'vdev-0001', file: 'feed.test.ts', name: 'scrolls the feed' }

function plainProgress(): { progress: TestProgress; lines: string[] } {
  const lines: string[] = []
  const progress = new TestProgress(ProgressChannel.for(undefined), subject, (t) => lines.push(t))
  return { progress, lines }
}

describe('without a reporter listening: plain lines', () => {
  afterEach(() => void vi.useRealTimers())

  test('a step with a line says it at once, and once', () => {
    const { progress, lines } = plainProgress()
    progress.step('baseline', { line: 'measuring the idle baseline of vdev-0001' })
    progress.step('baseline', { line: 'measuring the idle baseline of vdev-0001' })
    progress.step('recording')
    expect(lines).toEqual(['  ⋯ scrolls the feed: measuring the idle baseline of vdev-0001\n'])
  })

  test('a slow step’s line comes only if the step lasts; its words are read then', () => {
    vi.useFakeTimers()
    const { progress, lines } = plainProgress()
    let holder = 'a.test.ts › first'
    progress.step('waiting for the phone', { line: () => `held by ${holder}`, lineAfterMs: 1000 })
    holder = 'b.test.ts › second'
    vi.advanceTimersByTime(999)
    expect(lines).toEqual([])
    vi.advanceTimersByTime(1)
    expect(lines).toEqual(['  ⋯ scrolls the feed: held by b.test.ts › second\n'])
  })

  test('a slow step that ends before its time says nothing', () => {
    vi.useFakeTimers()
    const { progress, lines } = plainProgress()
    progress.step('converting samples', { line: 'converting', lineAfterMs: 1000 })
    vi.advanceTimersByTime(500)
    progress.step('attributing')
    progress.step('converting samples', { line: 'converting', lineAfterMs: 1000 })
    vi.advanceTimersByTime(500)
    progress.done()
    vi.advanceTimersByTime(5000)
    expect(lines).toEqual([])
  })

  test('notes and repetitions are lines', () => {
    const { progress, lines } = plainProgress()
    progress.within('repetition 1/2', 'repetition 1/2')
    progress.note('raw data kept in .vitest-energy/artifacts/x')
    expect(lines).toEqual([
      '  ⋯ scrolls the feed: repetition 1/2\n',
      '  ⋯ scrolls the feed: raw data kept in .vitest-energy/artifacts/x\n',
    ])
  })

  test('a port no socket can have (a stray VITEST_ENERGY_PROGRESS_PORT) is no reporter: plain lines, no throw', () => {
    for (const port of [70_000, 1.5, -1, Number.NaN]) {
      const lines: string[] = []
      const progress = new TestProgress(ProgressChannel.for(port), subject, (t) => lines.push(t))
      progress.step('baseline', { line: 'measuring the idle baseline' })
      expect(lines, String(port)).toEqual(['  ⋯ scrolls the feed: measuring the idle baseline\n'])
    }
  })

  test('a step after the test released its phone prints no plain line', () => {
    vi.useFakeTimers()
    const { progress, lines } = plainProgress()
    progress.step('running')
    progress.done()
    progress.step('converting samples', { line: 'converting', lineAfterMs: 1000 })
    progress.step('baseline', { line: 'measuring the idle baseline' })
    vi.advanceTimersByTime(5000)
    expect(lines).toEqual([])
  })
})

describe('with a reporter listening: phases over the socket', () => {
  test('the line shows each phase, with the repetition; no plain line is printed', async () => {
    const { terminalLog, status } = capturedStatus()
    const server = await listenForProgress(status)
    try {
      const lines: string[] = []
      const progress = new TestProgress(ProgressChannel.for(server.port), subject, (t) =>
        lines.push(t),
      )
      progress.step('baseline', { line: 'measuring the idle baseline' })
      await vi.waitFor(() => expect(status.render()).toContain('scrolls the feed · baseline'))
      progress.within('repetition 2/3', 'repetition 2/3')
      progress.step('recording')
      await vi.waitFor(() =>
        expect(status.render()).toContain('scrolls the feed · recording (repetition 2/3)'),
      )
      progress.note('raw data kept in x')
      progress.done()
      await vi.waitFor(() => expect(status.render()).toBe(''))
      expect(terminalLog.join('')).toContain('  ⋯ scrolls the feed: raw data kept in x\n')
      expect(lines).toEqual([])
    } finally {
      status.stop()
      await server.close()
    }
  })

  test('a step after the test released its phone (a body still running past its timeout) brings nothing back', async () => {
    const { status } = capturedStatus()
    const server = await listenForProgress(status)
    try {
      const late = new TestProgress(ProgressChannel.for(server.port), subject, () => undefined)
      late.step('running')
      await vi.waitFor(() => expect(status.render()).toContain('scrolls the feed · running'))
      late.done()
      late.step('stopping')
      late.step('running')
      // The next test's events come after the late ones on the same socket: once it shows, the
      // late ones have been read.
      const next = new TestProgress(
        ProgressChannel.for(server.port),
        { ...subject, name: 'opens a trail' },
        () => undefined,
      )
      next.step('recording')
      await vi.waitFor(() => expect(status.render()).toContain('opens a trail · recording'))
      expect(status.render()).not.toContain('scrolls the feed')
    } finally {
      status.stop()
      await server.close()
    }
  })

  test('a reporter gone away: notes fall back to plain lines', async () => {
    // A port nobody listens on any more.
    const free = createServer()
    await new Promise<void>((resolve) => free.listen(0, '127.0.0.1', resolve))
    const address = free.address()
    const port = typeof address === 'object' && address !== null ? address.port : 0
    await new Promise((resolve) => free.close(resolve))
    const channel = ProgressChannel.for(port)
    await vi.waitFor(() => expect(channel.live).toBe(false))
    const lines: string[] = []
    const progress = new TestProgress(channel, subject, (t) => lines.push(t))
    progress.step('baseline', { line: 'measuring the idle baseline' })
    progress.note('raw data kept in x')
    expect(lines).toEqual([
      '  ⋯ scrolls the feed: measuring the idle baseline\n',
      '  ⋯ scrolls the feed: raw data kept in x\n',
    ])
  })
})

function capturedStatus(): { terminalLog: string[]; status: LiveStatus } {
  const terminalLog: string[] = []
  const terminal = { columns: 120, write: (t: string) => terminalLog.push(t) }
  const status = new LiveStatus({ terminal, intercept: [], colors: plainScreen.colors })
  status.start()
  return { terminalLog, status }
}
