/** `adb shell` without a command: the emulated PTY session (echo, prompt with status, ^C, ^D). */
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startAdbServer, type AdbServer } from '../../../src/virtual-device/adb/server.js'
import { encodeData } from '../../../src/virtual-device/adb/wire.js'
import { createDevice } from '../../../src/virtual-device/device.js'

describe('interactive shell', () => {
  let server: AdbServer
  beforeAll(async () => {
    server = await startAdbServer({ devices: [createDevice({ serial: 'tty-1' })] })
  })
  afterAll(async () => {
    await server.close()
  })

  const session = async (): Promise<{
    socket: net.Socket
    text: () => string
    closed: Promise<void>
  }> => {
    const socket = net.connect(server.port, '127.0.0.1')
    let text = ''
    socket.on('data', (c: Buffer) => {
      text += c.toString('latin1')
    })
    const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
    socket.write(Buffer.concat([encodeData('host:transport:tty-1'), encodeData('shell:')]))
    await vi.waitFor(() => expect(text).toBe('OKAYOKAYoriole:/ $ '))
    return { socket, text: () => text, closed }
  }

  it('echoes input, runs lines, shows a non-zero status in the prompt, ends on ^D', async () => {
    const { socket, text, closed } = await session()
    socket.write('echo hi\r')
    await vi.waitFor(() => expect(text()).toBe('OKAYOKAYoriole:/ $ echo hi\r\nhi\r\noriole:/ $ '))
    socket.write('ls /nope\rgetx\x7fprop ro.serialno\n')
    await vi.waitFor(() =>
      expect(text()).toBe(
        'OKAYOKAYoriole:/ $ echo hi\r\nhi\r\noriole:/ $ ls /nope\r\nls: /nope: No such file or directory\r\n1|oriole:/ $ getx\b \bprop ro.serialno\r\ntty-1\r\noriole:/ $ ',
      ),
    )
    socket.write('\x04')
    await closed
  })

  it('^C interrupts a running command; exit ends the session', async () => {
    const { socket, text, closed } = await session()
    socket.write('sleep 1000\r')
    await vi.waitFor(() => expect(text()).toContain('sleep 1000\r\n'))
    socket.write('\x03')
    await vi.waitFor(() => expect(text()).toMatch(/\^C\r\n130\|oriole:\/ \$ $/))
    socket.write('exit\r')
    await closed
  })
})
