/**
 * The `sync:` service as adbd implements it (legacy v1 ids only: STAT, LIST, RECV, SEND, QUIT).
 * Reference: AOSP packages/modules/adb/daemon/file_sync_service.cpp (do_stat_v1, do_list,
 * do_recv, do_send). Error texts follow adbd: `open failed: <strerror>`,
 * `couldn't create file: <strerror>`, and for frames over the protocol's limits (a path over 1024
 * bytes, DATA over 64 KiB, which adbd never buffers) `path too long` / `oversize data message`.
 */
import type { Socket } from 'node:net'
import type { VirtualDeviceHandle, VirtualFileNode } from '../contract.js'
import { ERRNO_TEXT } from '../shell/errors.js'
import { deniedErrno, dirname, normalizePath, shellMayWrite, statMode } from '../shell/vfs.js'
import {
  SYNC_DATA_MAX,
  SYNC_PATH_MAX,
  syncDent,
  syncFrame,
  syncHeader,
  syncListDone,
  syncStat,
  type SocketReader,
} from './wire.js'

function sizeOf(path: string, node: VirtualFileNode): number {
  if (node.kind === 'file') return node.data.length
  if (node.kind === 'dir') return 4096
  return path.startsWith('/sys/') ? 4096 : 0
}

function mtimeOf(device: VirtualDeviceHandle, node: VirtualFileNode): number {
  if (node.kind !== 'dynamic') return node.mtimeS
  const c = device.clock
  return Math.floor((c.nowNs('realtime') - c.nowNs('boottime')) / 1e9)
}

/** Writes, waiting for the socket to drain; false if the peer went away. */
function writeAll(socket: Socket, ...buffers: Uint8Array[]): Promise<boolean> {
  if (socket.destroyed || !socket.writable) return Promise.resolve(false)
  socket.cork()
  let ok = true
  for (const b of buffers) ok = socket.write(b)
  socket.uncork()
  if (ok) return Promise.resolve(true)
  return new Promise((resolve) => {
    const done = (value: boolean) => (): void => {
      socket.off('drain', onDrain)
      socket.off('close', onClose)
      resolve(value)
    }
    const onDrain = done(true)
    const onClose = done(false)
    socket.once('drain', onDrain)
    socket.once('close', onClose)
  })
}

/** Serves sync requests until QUIT, EOF or an error that adbd answers by closing. */
export async function serveSync(
  device: VirtualDeviceHandle,
  socket: Socket,
  reader: SocketReader,
): Promise<void> {
  const fail = async (message: string): Promise<void> => {
    await writeAll(socket, syncFrame('FAIL', message))
    socket.end()
  }
  for (;;) {
    const header = await reader.read(8)
    if (header === undefined) return
    const id = header.toString('latin1', 0, 4)
    const length = header.readUInt32LE(4)
    if (id === 'QUIT') {
      socket.end()
      return
    }
    if (id !== 'STAT' && id !== 'LIST' && id !== 'RECV' && id !== 'SEND') {
      await fail(`unknown command ${header.readUInt32LE(0).toString(16).padStart(8, '0')}`)
      return
    }
    if (length > SYNC_PATH_MAX) {
      await fail('path too long')
      return
    }
    const raw = await reader.read(length)
    if (raw === undefined) return
    const arg = raw.toString('utf8')
    const fs = device.fs
    switch (id) {
      case 'STAT': {
        const path = normalizePath(arg)
        // adbd's lstat fails under a label shell may not read: STAT v1 then answers all zeros.
        const node = arg.startsWith('/') && !fs.shellDenied(path) ? fs.stat(path) : undefined
        const reply =
          node === undefined
            ? syncStat('STAT', 0, 0, 0)
            : syncStat('STAT', statMode(node), sizeOf(path, node), mtimeOf(device, node))
        if (!(await writeAll(socket, reply))) return
        break
      }
      case 'LIST': {
        const path = normalizePath(arg)
        const node = arg.startsWith('/') && !fs.shellDenied(path) ? fs.stat(path) : undefined
        const frames: Buffer[] = []
        if (node?.kind === 'dir') {
          const parent = fs.stat(dirname(path)) ?? node
          frames.push(syncDent(statMode(node), 4096, mtimeOf(device, node), '.'))
          frames.push(syncDent(statMode(parent), 4096, mtimeOf(device, parent), '..'))
          for (const name of fs.list(path)) {
            const childPath = `${path === '/' ? '' : path}/${name}`
            const child = fs.stat(childPath)
            if (child === undefined) continue
            frames.push(
              syncDent(statMode(child), sizeOf(childPath, child), mtimeOf(device, child), name),
            )
          }
        }
        frames.push(syncListDone())
        if (!(await writeAll(socket, ...frames))) return
        break
      }
      case 'RECV': {
        const path = normalizePath(arg)
        const node = arg.startsWith('/') ? fs.stat(path) : undefined
        if (arg.startsWith('/') && fs.shellDenied(path)) {
          await fail(`open failed: ${ERRNO_TEXT.EACCES}`)
          return
        }
        if (node === undefined) {
          await fail(`open failed: ${ERRNO_TEXT.ENOENT}`)
          return
        }
        if (node.kind === 'dir') {
          await fail(`read failed: ${ERRNO_TEXT.EISDIR}`)
          return
        }
        const data = fs.readFile(path)
        for (let offset = 0; offset < data.length; offset += SYNC_DATA_MAX) {
          const chunk = data.subarray(offset, Math.min(offset + SYNC_DATA_MAX, data.length))
          if (!(await writeAll(socket, syncHeader('DATA', chunk.length), chunk))) return
        }
        if (!(await writeAll(socket, syncHeader('DONE', 0)))) return
        break
      }
      case 'SEND': {
        const comma = arg.lastIndexOf(',')
        const path = normalizePath(comma < 0 ? arg : arg.slice(0, comma))
        const mode = comma < 0 ? 0o644 : Number.parseInt(arg.slice(comma + 1), 10)
        let problem: string | undefined
        if (!arg.startsWith('/')) problem = `couldn't create file: ${ERRNO_TEXT.ENOENT}`
        else if (fs.stat(path)?.kind === 'dir')
          problem = `couldn't create file: ${ERRNO_TEXT.EISDIR}`
        else {
          // adbd creates missing parent directories; find the deepest existing one.
          let dir = dirname(path)
          while (fs.stat(dir) === undefined && dir !== '/') dir = dirname(dir)
          if (fs.stat(dir)?.kind !== 'dir') problem = `couldn't create file: ${ERRNO_TEXT.ENOTDIR}`
          else if (!shellMayWrite(fs, dir)) {
            problem = `couldn't create file: ${ERRNO_TEXT[deniedErrno(dir)]}`
          }
        }
        const chunks: Buffer[] = []
        let mtimeS = 0
        for (;;) {
          const h = await reader.read(8)
          if (h === undefined) return
          const fid = h.toString('latin1', 0, 4)
          const n = h.readUInt32LE(4)
          if (fid === 'DONE') {
            mtimeS = n
            break
          }
          if (fid !== 'DATA') {
            await fail('invalid data message')
            return
          }
          if (n > SYNC_DATA_MAX) {
            await fail('oversize data message')
            return
          }
          const body = await reader.read(n)
          if (body === undefined) return
          if (problem === undefined) chunks.push(Buffer.from(body))
        }
        if (problem !== undefined) {
          await fail(problem)
          return
        }
        fs.mkdirp(dirname(path))
        fs.writeFile(path, Buffer.concat(chunks), Number.isNaN(mode) ? 0o644 : mode & 0o7777)
        const written = fs.stat(path)
        if (written !== undefined && written.kind === 'file' && mtimeS > 0) written.mtimeS = mtimeS
        if (!(await writeAll(socket, syncHeader('OKAY', 0)))) return
        break
      }
    }
  }
}
