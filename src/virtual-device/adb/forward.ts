/**
 * `adb forward`: the server listens on a host TCP port (loopback only) and joins each connection
 * to a TCP port on the device, where a phone-side server listens (`VirtualDeviceHandle.tcpListeners`).
 * Also the device service `tcp:<port>`, which joins an ADB connection itself to that port.
 * Reference: AOSP packages/modules/adb (adb_listeners.cpp, the `forward:` host requests).
 */
import net from 'node:net'
import type { Socket } from 'node:net'
import { Duplex } from 'node:stream'
import type { VirtualDeviceHandle } from '../contract.js'
import type { SocketReader } from './wire.js'

/** One forward, as `adb forward --list` prints it. */
export interface Forward {
  readonly serial: string
  /** `tcp:<host port>` (the port actually bound, also for `tcp:0`). */
  readonly local: string
  /** `tcp:<device port>`. */
  readonly remote: string
}

/** An outcome in adb's words: `FAIL` text for the client, or the bound port. */
export type ForwardResult = { ok: true; port: number } | { ok: false; message: string }

/** `tcp:<port>` → port, or undefined for other socket specs (adb accepts more; we serve tcp). */
export function tcpPort(spec: string): number | undefined {
  const m = /^tcp:(\d{1,5})$/.exec(spec)
  if (m === null) return undefined
  const port = Number(m[1])
  return port <= 65535 ? port : undefined
}

/**
 * Joins a connection to the device's listener on `port`; with no listener the connection closes,
 * which is what a client sees when nothing listens on the phone.
 */
export function connectDevicePort(
  device: VirtualDeviceHandle,
  port: number,
  connection: Duplex,
): void {
  const listener = device.tcpListeners.get(port)
  if (listener === undefined) {
    connection.destroy()
    return
  }
  listener(connection)
}

/**
 * The device side of an ADB connection after `OKAY` to `tcp:<port>`, as a stream: bytes the
 * client sends come through `reader` (which may already hold some), bytes written go to `socket`.
 */
export function adbStream(socket: Socket, reader: SocketReader): Duplex {
  let reading = false
  const stream = new Duplex({
    read() {
      if (reading) return
      reading = true
      void reader.readSome(64 * 1024).then((chunk) => {
        reading = false
        stream.push(chunk ?? null)
      })
    },
    write(chunk: Buffer, _encoding, callback) {
      if (socket.destroyed) callback(new Error('connection closed'))
      else socket.write(chunk, () => callback())
    },
    final(callback) {
      socket.end(callback)
    },
    destroy(error, callback) {
      socket.destroy()
      callback(error)
    },
  })
  socket.once('close', () => {
    if (!stream.destroyed) stream.destroy()
  })
  return stream
}

/** The server's forwards: one loopback listener per host port. */
export class ForwardTable {
  private readonly byLocal = new Map<number, { forward: Forward; server: net.Server }>()
  private readonly connections = new Set<Socket>()

  constructor(
    private readonly host: string,
    /** The device by serial, when it is served and online now. */
    private readonly device: (serial: string) => VirtualDeviceHandle | undefined,
  ) {}

  list(): Forward[] {
    return [...this.byLocal.values()].map((f) => f.forward)
  }

  /** `forward[:norebind]:<local>;<remote>` for `serial`. */
  async add(
    serial: string,
    local: string,
    remote: string,
    norebind: boolean,
  ): Promise<ForwardResult> {
    const localPort = tcpPort(local)
    const remotePort = tcpPort(remote)
    if (localPort === undefined) return { ok: false, message: `cannot bind listener: ${local}` }
    if (remotePort === undefined) return { ok: false, message: `unsupported remote: ${remote}` }
    const existing = localPort === 0 ? undefined : this.byLocal.get(localPort)
    if (existing !== undefined) {
      if (norebind) return { ok: false, message: 'cannot rebind existing socket' }
      const forward = { serial, local, remote: `tcp:${remotePort}` }
      this.byLocal.set(localPort, { forward, server: existing.server })
      return { ok: true, port: localPort }
    }
    // The port actually bound (tcp:0 asks the system for one) keys the forward.
    let boundPort = localPort
    const server = net.createServer((socket) => this.accept(boundPort, socket))
    const bound = await new Promise<number | string>((resolve) => {
      server.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
      server.listen(localPort, this.host, () => {
        const address = server.address()
        resolve(typeof address === 'object' && address !== null ? address.port : localPort)
      })
    })
    if (typeof bound === 'string') {
      return { ok: false, message: `cannot bind listener: ${bound}` }
    }
    boundPort = bound
    server.on('error', () => undefined)
    // A forward's listener must not keep the process alive on its own.
    server.unref()
    this.byLocal.set(bound, {
      forward: { serial, local: `tcp:${bound}`, remote: `tcp:${remotePort}` },
      server,
    })
    return { ok: true, port: bound }
  }

  /** `killforward:<local>`; adb answers `listener '<local>' not found` for an unknown one. */
  remove(local: string): ForwardResult {
    const port = tcpPort(local)
    const entry = port === undefined ? undefined : this.byLocal.get(port)
    if (port === undefined || entry === undefined) {
      return { ok: false, message: `listener '${local}' not found` }
    }
    this.byLocal.delete(port)
    entry.server.close()
    return { ok: true, port }
  }

  /** Removes every forward (of one device, when `serial` is given). */
  removeAll(serial?: string): void {
    for (const [port, entry] of this.byLocal) {
      if (serial !== undefined && entry.forward.serial !== serial) continue
      this.byLocal.delete(port)
      entry.server.close()
    }
  }

  close(): void {
    this.removeAll()
    for (const socket of this.connections) socket.destroy()
  }

  private accept(localPort: number, socket: Socket): void {
    socket.on('error', () => undefined)
    this.connections.add(socket)
    socket.once('close', () => this.connections.delete(socket))
    const entry = this.byLocal.get(localPort)
    const device = entry === undefined ? undefined : this.device(entry.forward.serial)
    const remotePort = entry === undefined ? undefined : tcpPort(entry.forward.remote)
    if (device === undefined || remotePort === undefined) {
      socket.destroy()
      return
    }
    connectDevicePort(device, remotePort, socket)
  }
}
