/**
 * `adb shell` with no command: an interactive session, as adbd gives it over a PTY. The PTY is
 * emulated just enough for a person poking around: typed characters are echoed, Backspace erases,
 * Enter runs the line (output with `\r\n` line ends, like a terminal's onlcr), Ctrl-C interrupts the
 * running command or clears the line, Ctrl-D on an empty line or `exit` ends the session. The prompt
 * is mksh's Android prompt: `oriole:/ $ `, prefixed by the last status when it is not 0 (`1|`).
 * Each line runs in a fresh `sh -c` (variables do not carry over between lines).
 *
 * Bounded: a line holds at most `LINE_MAX` bytes (further characters ring the bell, as mksh's
 * editor does); keys typed while a command runs are queued up to `TYPEAHEAD_MAX` bytes (a paste;
 * a Ctrl-C among them interrupts the command) and past that, or while the client does not read
 * what it is sent, the session stops reading the socket, as adbd blocks on a full PTY. Nothing
 * typed is lost. Echo and output are coalesced: one socket write per turn of the event loop, not
 * one per typed byte.
 */
import type { VirtualDeviceHandle } from '../contract.js'
import { execShell } from '../shell/index.js'
import type { SocketOutput } from './socket-output.js'
import type { SocketReader } from './wire.js'

/** Longest line (bytes): mksh's edit buffer and the kernel's canonical line are 4 KiB. */
export const LINE_MAX = 4095
/** Keys held while a command runs, read ahead to see a Ctrl-C among them. */
export const TYPEAHEAD_MAX = 1024 * 1024
/** Most bytes read from the socket at once (and echoed in one write). */
const READ_CHUNK = 64 * 1024

const BELL = '\x07'

function toCrLf(chunk: string | Uint8Array): Buffer {
  const text = (typeof chunk === 'string' ? Buffer.from(chunk) : Buffer.from(chunk)).toString(
    'latin1',
  )
  return Buffer.from(text.replace(/\r?\n/g, '\r\n'), 'latin1')
}

/** Serves the session until `exit`, Ctrl-D or `hangup` (the client's socket closed). */
export async function serveInteractiveShell(
  device: VirtualDeviceHandle,
  output: SocketOutput,
  reader: SocketReader,
  hangup: AbortSignal,
): Promise<void> {
  const send = (text: string | Uint8Array): void => output.write(text)
  const host = device.props.get('ro.product.device') ?? 'localhost'
  let status = 0
  const promptText = (): string => `${status === 0 ? '' : `${status}|`}${host}:/ $ `
  const line = Buffer.alloc(LINE_MAX)
  let lineLength = 0
  let running: { controller: AbortController; finished: Promise<void> } | undefined
  /** Keys typed while a command runs, replayed when it ends (like a terminal's typeahead). */
  let typeahead: Uint8Array[] = []
  let typeaheadBytes = 0
  let done = false

  const end = (): void => {
    done = true
    output.end()
  }

  hangup.addEventListener('abort', () => running?.controller.abort('client disconnected'), {
    once: true,
  })

  const runLine = (command: string): void => {
    const controller = new AbortController()
    const io = {
      write: (c: string | Uint8Array) => send(toCrLf(c)),
      writeErr: (c: string | Uint8Array) => send(toCrLf(c)),
      ready: () => output.ready(),
    }
    const finished = execShell(device, command, io, controller.signal).then((s) => {
      status = s
      running = undefined
      if (controller.signal.aborted && controller.signal.reason === 'INT') send('^C\r\n')
      send(promptText())
      const queued = Buffer.concat(typeahead)
      typeahead = []
      typeaheadBytes = 0
      feed(queued)
    })
    running = { controller, finished }
  }

  /** Handles typed bytes; what they echo leaves in one write. */
  const feed = (bytes: Buffer): void => {
    let echo = ''
    const flushEcho = (): void => {
      if (echo !== '') send(Buffer.from(echo, 'latin1'))
      echo = ''
    }
    for (let i = 0; i < bytes.length; i++) {
      const byte = bytes[i] ?? 0
      if (done) break
      if (running !== undefined) {
        // Ctrl-C interrupts the command; the other keys wait for it to end.
        const rest = bytes.subarray(i)
        if (rest.includes(0x03)) running.controller.abort('INT')
        const keys = rest.filter((b) => b !== 0x03)
        typeahead.push(keys)
        typeaheadBytes += keys.length
        break
      }
      if (byte === 0x03) {
        echo += `^C\r\n`
        lineLength = 0
        status = 130
        echo += promptText()
      } else if (byte === 0x04) {
        if (lineLength === 0) {
          echo += '\r\n'
          flushEcho()
          end()
        }
      } else if (byte === 0x7f || byte === 0x08) {
        if (lineLength > 0) {
          lineLength--
          echo += '\b \b'
        }
      } else if (byte === 0x0d || byte === 0x0a) {
        echo += '\r\n'
        const command = line.toString('utf8', 0, lineLength)
        lineLength = 0
        if (/^\s*exit(\s|$)/.test(command)) {
          flushEcho()
          end()
        } else if (command.trim() === '') echo += promptText()
        else {
          flushEcho()
          runLine(command)
        }
      } else if (byte >= 0x20) {
        if (lineLength < LINE_MAX) {
          line[lineLength++] = byte
          echo += String.fromCharCode(byte)
        } else echo += BELL
      }
    }
    flushEcho()
  }

  send(promptText())
  while (!done) {
    // Stop reading while the client does not read what it is sent, or the typeahead is full.
    await output.ready()
    while (running !== undefined && typeaheadBytes >= TYPEAHEAD_MAX) await running.finished
    if (done) return
    const chunk = await reader.readSome(READ_CHUNK)
    if (chunk === undefined) {
      running?.controller.abort('client disconnected')
      return
    }
    feed(chunk)
  }
}
