// The progress socket's server after it listens (reporter/progress.ts): an error it emits then
// (a failed accept, when the main process runs out of file descriptors) costs that connection only.
// A server error with no listener is thrown by Node and ends the run's main process. The server
// is captured from `node:net`, whose other exports stay the real ones.
import type * as Net from 'node:net'
import type { Server } from 'node:net'
import { connect } from 'node:net'
import { expect, test, vi } from 'vitest'
import { listenForProgress, LiveStatus } from '../../reporter/progress.js'
import { plainScreen } from '../../reporter/screen.js'

const created: Server[] = []

vi.mock('node:net', async (importOriginal) => {
  const net = await importOriginal<typeof Net>()
  return {
    ...net,
    createServer: (...args: Parameters<typeof net.createServer>) => {
      const server = net.createServer(...args)
      created.push(server)
      return server
    },
  }
})

test('errors after listening (failed accepts) do not throw, and the server keeps listening', async () => {
  const status = new LiveStatus({
    terminal: { columns: 120, write: () => true },
    intercept: [],
    colors: plainScreen.colors,
  })
  const server = await listenForProgress(status)
  try {
    const listening = created.at(-1) as Server
    const accept = Object.assign(new Error('accept EMFILE'), { code: 'EMFILE' })
    expect(() => {
      listening.emit('error', accept)
      listening.emit('error', accept)
    }).not.toThrow()
    const socket = connect({ host: '127.0.0.1', port: server.port })
    socket.write(
      `${JSON.stringify({ kind: 'phase', test: { id: 1, phone: 'vdev-0001', file: 'feed.test.ts', name: 'scrolls' }, phase: 'recording' })}\n`,
    )
    await vi.waitFor(() => expect(status.render()).toContain('scrolls · recording'))
    socket.destroy()
  } finally {
    await server.close()
  }
})
