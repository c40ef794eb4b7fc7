// The live status line (reporter/progress.ts): the pure line, the drawing over a terminal whose
// other writes pass above it, the loopback socket, and when a terminal gets the line at all.
import { connect } from 'node:net'
import fc from 'fast-check'
import { describe, expect, test, vi } from 'vitest'
import {
  liveStatusWanted,
  listenForProgress,
  LiveStatus,
  statusLine,
  type StatusEntry,
} from '../../reporter/progress.js'
import { plainScreen } from '../../reporter/screen.js'
import {
  parseProgressEvent,
  PROGRESS_PHASES,
  type ProgressEvent,
} from '../../src/model/progress.js'

const c = plainScreen.colors

function entry(phone: string, name: string, phase: StatusEntry['phase'], sinceMs = 0): StatusEntry {
  return { phone, file: `${name.split(' ')[0]}.test.ts`, name, phase, sinceMs }
}

describe('statusLine', () => {
  test.each([
    {
      what: 'per phone: the test holding it, its phase and the seconds in it',
      entries: [entry('vdev-0001', 'feed scrolls', 'recording', 0)],
      nowMs: 2_140,
      line: 'vdev-0001 › feed.test.ts › feed scrolls · recording 2.1 s',
    },
    {
      what: 'a detail in brackets; tests waiting for the holder counted',
      entries: [
        { ...entry('vdev-0001', 'feed scrolls', 'recording', 1_000), detail: 'repetition 1/2' },
        entry('vdev-0001', 'sync runs', 'waiting for the phone', 0),
        entry('vdev-0001', 'map opens', 'waiting for the phone', 500),
      ],
      nowMs: 1_500,
      line: 'vdev-0001 › feed.test.ts › feed scrolls · recording (repetition 1/2) 0.5 s · 2 waiting',
    },
    {
      what: 'phones in order, apart; one waiting test is named, several are counted',
      entries: [
        entry('vdev-0002', 'sync runs', 'waiting for the phone', 0),
        entry('vdev-0001', 'feed scrolls', 'waiting for the phone', 600),
        entry('vdev-0001', 'map opens', 'waiting for the phone', 200),
      ],
      nowMs: 1_400,
      line: 'vdev-0001 › 2 tests waiting for the phone 1.2 s │ vdev-0002 › sync.test.ts › sync runs · waiting for the phone 1.4 s',
    },
  ])('$what', ({ entries, nowMs, line }) => {
    expect(statusLine(entries, nowMs, 200, c)).toBe(line)
  })

  test('a narrow terminal drops the file names first, then shortens the test names', () => {
    const entries = [
      entry('vdev-0001', 'feed scrolls the whole feed', 'recording'),
      entry('vdev-0002', 'sync runs in the background', 'baseline'),
    ]
    expect(statusLine(entries, 0, 120, c)).toBe(
      'vdev-0001 › feed scrolls the whole feed · recording 0.0 s │ vdev-0002 › sync runs in the background · baseline 0.0 s',
    )
    expect(statusLine(entries, 0, 90, c)).toBe(
      'vdev-0001 › feed scrolls… · recording 0.0 s │ vdev-0002 › sync runs in… · baseline 0.0 s',
    )
  })

  test('never wider than the terminal, whatever the phones and names', () => {
    const anyEntry = fc.record({
      phone: fc.constantFrom('vdev-0001', 'vdev-0002', 'R5CT10ABCDE'),
      file: fc.string({ maxLength: 40 }),
      name: fc.string({ maxLength: 80 }),
      phase: fc.constantFrom(...PROGRESS_PHASES),
      sinceMs: fc.nat(100_000),
    })
    fc.assert(
      fc.property(
        fc.array(anyEntry, { maxLength: 8 }),
        fc.integer({ min: 10, max: 200 }),
        (es, w) => {
          expect(statusLine(es, 100_000, w, c).length).toBeLessThanOrEqual(w)
        },
      ),
    )
  })

  test('wide characters count two columns; control characters in names become spaces', () => {
    const wide = statusLine([entry('vdev-0001', 'フィード スクロール', 'recording')], 0, 44, c)
    // 44 columns less 30 for the rest: 14 for the name, its last one for '…' (each kana is 2).
    expect(wide).toBe('vdev-0001 › フィード スク… · recording 0.0 s')
    const { stream, log } = fakeTerminal()
    const status = new LiveStatus({ terminal: stream, intercept: [], colors: c })
    status.start()
    status.receive(1, {
      kind: 'phase',
      test: { id: 1, phone: 'vdev-0001', file: 'a.test.ts', name: 'two\nlines\x1b[2J' },
      phase: 'recording',
    })
    status.draw()
    status.stop()
    expect(log[0]).toBe('vdev-0001 › a.test.ts › two lines [2J · recording 0.0 s')
  })

  test('nothing to show: no line', () => {
    expect(statusLine([], 0, 80, c)).toBe('')
  })
})

describe('parseProgressEvent', () => {
  const test1 = { id: 1, phone: 'vdev-0001', file: 'feed.test.ts', name: 'scrolls' }

  test('phase, note and done events read back as sent', () => {
    const events: ProgressEvent[] = [
      { kind: 'phase', test: test1, phase: 'recording', detail: 'repetition 1/2' },
      { kind: 'phase', test: test1, phase: 'waiting for the phone' },
      { kind: 'note', test: test1, text: 'raw data kept in x' },
      { kind: 'done', test: test1 },
    ]
    for (const event of events) expect(parseProgressEvent(JSON.stringify(event))).toEqual(event)
  })

  test('anything else is ignored', () => {
    for (const line of [
      'not json',
      '[]',
      JSON.stringify({ kind: 'phase', test: test1, phase: 'sleeping' }),
      JSON.stringify({ kind: 'shout', test: test1 }),
      JSON.stringify({ kind: 'done' }),
      JSON.stringify({ kind: 'done', test: { ...test1, id: 1.5 } }),
      JSON.stringify({ kind: 'note', test: test1, text: 'x'.repeat(1001) }),
      JSON.stringify({ kind: 'phase', test: test1, phase: 'recording', detail: 3 }),
    ])
      expect(parseProgressEvent(line), line).toBeUndefined()
  })
})

/** A terminal whose writes are logged in order; it is also the stream other writers use. */
function fakeTerminal(columns = 100): { stream: NodeJS.WriteStream; log: string[] } {
  const log: string[] = []
  const stream = {
    columns,
    write(chunk: string | Uint8Array): boolean {
      log.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString())
      return true
    },
  }
  return { stream: stream as unknown as NodeJS.WriteStream, log }
}

const ERASE = '\r\x1b[2K'
const phase = (
  id: number,
  name: string,
  p: StatusEntry['phase'],
): Extract<ProgressEvent, { kind: 'phase' }> => ({
  kind: 'phase',
  test: { id, phone: 'vdev-0001', file: 'feed.test.ts', name },
  phase: p,
})

describe('LiveStatus', () => {
  function started() {
    let nowMs = 0
    const { stream, log } = fakeTerminal()
    const original = stream.write
    const status = new LiveStatus({
      terminal: stream,
      intercept: [stream],
      colors: c,
      nowMs: () => nowMs,
    })
    status.start()
    return { status, stream, log, original, advance: (ms: number) => (nowMs += ms) }
  }

  test('draws the line, redraws it only when it changed, erasing what was there', () => {
    const { status, log, advance } = started()
    status.receive(1, phase(1, 'scrolls', 'recording'))
    status.draw()
    status.draw()
    advance(100)
    status.draw()
    status.stop()
    expect(log).toEqual([
      'vdev-0001 › feed.test.ts › scrolls · recording 0.0 s',
      `${ERASE}vdev-0001 › feed.test.ts › scrolls · recording 0.1 s`,
      ERASE,
    ])
  })

  test('other writes go above the line; a half-written line is not drawn over', () => {
    const { status, stream, log } = started()
    status.receive(1, phase(1, 'scrolls', 'baseline'))
    status.draw()
    stream.write('a log line\n')
    status.draw()
    stream.write('no newline yet')
    status.draw()
    stream.write('…now\n')
    status.draw()
    status.stop()
    const line = 'vdev-0001 › feed.test.ts › scrolls · baseline 0.0 s'
    expect(log).toEqual([
      line,
      ERASE,
      'a log line\n',
      line,
      ERASE,
      'no newline yet',
      '…now\n',
      line,
      ERASE,
    ])
  })

  test('notes are printed above the line; done and a closed source leave it', () => {
    const { status, log } = started()
    status.receive(1, phase(1, 'scrolls', 'recording'))
    status.receive(2, phase(1, 'syncs', 'waiting for the phone'))
    status.draw()
    status.receive(1, {
      kind: 'note',
      test: { id: 1, phone: 'vdev-0001', file: 'feed.test.ts', name: 'scrolls' },
      text: 'raw data kept in a/b',
    })
    status.receive(1, {
      kind: 'done',
      test: { id: 1, phone: 'vdev-0001', file: 'feed.test.ts', name: 'scrolls' },
    })
    expect(status.render()).toBe('vdev-0001 › feed.test.ts › syncs · waiting for the phone 0.0 s')
    status.closed(2)
    expect(status.render()).toBe('')
    status.stop()
    expect(log.slice(1)).toEqual([ERASE, '  ⋯ scrolls: raw data kept in a/b\n'])
  })

  test('a terminal of unknown size (0 columns, as under `script`) gets an 80-column line, not none', () => {
    const { stream } = fakeTerminal(0)
    const status = new LiveStatus({ terminal: stream, intercept: [], colors: c, nowMs: () => 0 })
    status.receive(1, phase(1, 'scrolls', 'recording'))
    expect(status.render()).toBe('vdev-0001 › feed.test.ts › scrolls · recording 0.0 s')
  })

  test('a phase goes on counting while it repeats; a new phase starts from 0', () => {
    const { status, advance } = started()
    status.receive(1, phase(1, 'scrolls', 'recording'))
    advance(1_500)
    status.receive(1, { ...phase(1, 'scrolls', 'recording'), detail: 'repetition 2/2' })
    expect(status.render()).toContain('recording (repetition 2/2) 1.5 s')
    status.receive(1, phase(1, 'scrolls', 'stopping'))
    expect(status.render()).toContain('stopping 0.0 s')
    status.stop()
  })

  test('a test process holds at most 32 tests on the line: a peer sending ever new ids cannot grow it', () => {
    const { status } = started()
    for (let id = 1; id <= 10_000; id++)
      status.receive(1, phase(id, `t${id}`, 'waiting for the phone'))
    expect(status.render()).toBe('vdev-0001 › 32 tests waiting for the phone 0.0 s')
    // Its tests already shown still move on and leave; a place freed is taken by the next.
    status.receive(1, phase(1, 't1', 'recording'))
    expect(status.render()).toContain('t1 · recording 0.0 s · 31 waiting')
    status.receive(1, { kind: 'done', test: phase(1, 't1', 'recording').test })
    status.receive(1, phase(20_000, 'later', 'recording'))
    expect(status.render()).toContain('later · recording 0.0 s · 31 waiting')
    // Another process has places of its own.
    status.receive(2, phase(1, 'other', 'waiting for the phone'))
    expect(status.render()).toContain('· 32 waiting')
    status.closed(1)
    expect(status.render()).toBe('vdev-0001 › feed.test.ts › other · waiting for the phone 0.0 s')
    for (let id = 1; id <= 40; id++) status.receive(1, phase(id, `t${id}`, 'waiting for the phone'))
    expect(status.render()).toBe('vdev-0001 › 33 tests waiting for the phone 0.0 s')
    status.stop()
  })

  test('stopped: the writes are the stream’s own again and nothing is drawn', () => {
    const { status, stream, log, original } = started()
    status.receive(1, phase(1, 'scrolls', 'recording'))
    status.stop()
    expect(stream.write).toBe(original)
    status.draw()
    stream.write('report\n')
    expect(log).toEqual(['report\n'])
  })
})

describe('listenForProgress', () => {
  test('test processes’ events over the loopback socket reach the line; a flood is cut off', async () => {
    const { stream } = fakeTerminal()
    const status = new LiveStatus({ terminal: stream, intercept: [], colors: c })
    const server = await listenForProgress(status)
    try {
      const socket = connect({ host: '127.0.0.1', port: server.port })
      socket.write('garbage\n')
      socket.write(`${JSON.stringify(phase(7, 'scrolls', 'converting samples'))}\n`)
      await vi.waitFor(() => expect(status.render()).toContain('scrolls · converting samples'))
      const closed = new Promise((resolve) => socket.once('close', resolve))
      socket.write('x'.repeat(70 * 1024))
      await closed
      // Its tests leave the line with it.
      await vi.waitFor(() => expect(status.render()).toBe(''))
    } finally {
      await server.close()
    }
  })
})

describe('liveStatusWanted', () => {
  const tty = { isTTY: true }
  test('a terminal outside CI gets the line', () => {
    expect(liveStatusWanted(tty, {})).toBe(true)
    expect(liveStatusWanted(tty, { CI: 'false' })).toBe(true)
  })
  test('CI, a dumb terminal or a pipe get plain lines', () => {
    expect(liveStatusWanted(tty, { CI: 'true' })).toBe(false)
    expect(liveStatusWanted(tty, { CI: '1' })).toBe(false)
    expect(liveStatusWanted(tty, { GITHUB_ACTIONS: 'true' })).toBe(false)
    expect(liveStatusWanted(tty, { TERM: 'dumb' })).toBe(false)
    expect(liveStatusWanted({ isTTY: false }, {})).toBe(false)
    expect(liveStatusWanted({}, {})).toBe(false)
  })
})
