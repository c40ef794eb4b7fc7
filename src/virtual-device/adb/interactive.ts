/**
 * `adb shell` with no command: an interactive session, as adbd gives it over a PTY. The PTY is
 * emulated just enough for a person poking around: typed characters are echoed, Backspace erases,
 * Enter runs the line (output with `\r\n` line ends, like a terminal's onlcr), Ctrl-C interrupts the
 * running command or clears the line, Ctrl-D on an empty line or `exit` ends the session. The prompt
 * is mksh's Android prompt: `oriole:/ $ `, prefixed by the last status when it is not 0 (`1|`).
 * Each line runs in a fresh `sh -c` (variables do not carry over between lines).
 */
import type { Socket } from 'node:net'
import type { VirtualDeviceHandle } from '../contract.js'
import { execShell } from '../shell/index.js'
import type { SocketReader } from './wire.js'

export async function serveInteractiveShell(
  device: VirtualDeviceHandle,
  socket: Socket,
  reader: SocketReader,
): Promise<void> {
  const send = (text: string | Uint8Array): void => {
    if (!socket.destroyed && socket.writable) socket.write(text)
  }
  const toCrLf = (chunk: string | Uint8Array): Buffer => {
    const text = Buffer.from(typeof chunk === 'string' ? Buffer.from(chunk) : chunk).toString(
      'latin1',
    )
    return Buffer.from(text.replace(/\r?\n/g, '\r\n'), 'latin1')
  }
  const host = device.props.get('ro.product.device') ?? 'localhost'
  let status = 0
  const prompt = (): void => send(`${status === 0 ? '' : `${status}|`}${host}:/ $ `)
  let line = ''
  let running: AbortController | undefined
  /** Keys typed while a command runs, replayed when it ends (like a terminal's typeahead). */
  let typeahead: number[] = []
  let done = false

  const runLine = (command: string): void => {
    const controller = new AbortController()
    running = controller
    const io = {
      write: (c: string | Uint8Array) => send(toCrLf(c)),
      writeErr: (c: string | Uint8Array) => send(toCrLf(c)),
    }
    void execShell(device, command, io, controller.signal).then((s) => {
      status = s
      running = undefined
      if (controller.signal.aborted && controller.signal.reason === 'INT') send('^C\r\n')
      prompt()
      const queued = typeahead
      typeahead = []
      feed(queued)
    })
  }

  const feed = (bytes: Iterable<number>): void => {
    for (const byte of bytes) {
      if (done) return
      if (running !== undefined) {
        if (byte === 0x03) running.abort('INT')
        else typeahead.push(byte)
        continue
      }
      if (byte === 0x03) {
        send('^C\r\n')
        line = ''
        status = 130
        prompt()
      } else if (byte === 0x04) {
        if (line === '') {
          send('\r\n')
          done = true
          socket.end()
        }
      } else if (byte === 0x7f || byte === 0x08) {
        if (line.length > 0) {
          line = line.slice(0, -1)
          send('\b \b')
        }
      } else if (byte === 0x0d || byte === 0x0a) {
        send('\r\n')
        const command = line
        line = ''
        if (/^\s*exit(\s|$)/.test(command)) {
          done = true
          socket.end()
        } else if (command.trim() === '') prompt()
        else runLine(command)
      } else if (byte >= 0x20) {
        line += String.fromCharCode(byte)
        send(Buffer.from([byte]))
      }
    }
  }

  prompt()
  while (!done) {
    const chunk = await reader.readSome()
    if (chunk === undefined) {
      running?.abort('client disconnected')
      return
    }
    feed(chunk)
  }
}
