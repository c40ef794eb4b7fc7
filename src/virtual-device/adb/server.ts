/**
 * An ADB server on loopback that serves virtual devices, speaking the host protocol so the real
 * adbkit client and the real `adb` client (v41, `adb -P <port>`) drive them unchanged.
 * Reference: AOSP packages/modules/adb/SERVICES.TXT and adb's client (`adb_connect`,
 * `switch_socket_transport`), checked against Debian's adb 1:29.0.6 and adbkit 3 sources.
 */
import net from 'node:net'
import type { Socket } from 'node:net'
import { EnergyError } from '../../model/errors.js'
import type { VirtualDeviceHandle } from '../contract.js'
import { execShell } from '../shell/index.js'
import { AdbServerErrors } from './errors.js'
import { adbStream, connectDevicePort, ForwardTable, tcpPort } from './forward.js'
import { serveInteractiveShell } from './interactive.js'
import { SocketOutput, type OutputCounters } from './socket-output.js'
import { serveSync } from './sync.js'
import { encodeData, encodeFail, encodeOkay, readRequest, SocketReader } from './wire.js'

/** `pm install-write -S <size>` (or `cmd package …`): the command line whose stdin is the APK. */
const INSTALL_WRITE = /^(?:pm|cmd package) ['"]?install-write['"]? .*?-S['"]? ['"]?(\d{1,12})\b/

/** The largest APK part a client may stream into one `install-write` (read into memory). */
const MAX_INSTALL_WRITE_BYTES = 512 * 1024 * 1024

/** The host protocol version we report: 0x29 = 41, what adb 1.0.41 clients expect. */
export const ADB_SERVER_VERSION = 41

export interface AdbServerOptions {
  /** Loopback address to bind (127.0.0.0/8, `::1` or `localhost`). @default '127.0.0.1' */
  readonly host?: string
  /**
   * Allow an address that is not loopback (a lab test on a trusted network: whoever reaches the
   * port runs shell commands on the simulated phones). @default false
   */
  readonly allowNetwork?: boolean
  /** TCP port; 0 picks a free one. @default 0 */
  readonly port?: number
  /** Devices served from the start. */
  readonly devices?: readonly VirtualDeviceHandle[]
}

export interface AdbServer {
  /** The port actually bound. */
  readonly port: number
  readonly host: string
  /** Stops listening and drops every connection. Idempotent. */
  close(): Promise<void>
  /** Resolves once the server has closed (by `close()` or an `adb kill-server`). */
  readonly closed: Promise<void>
  /** Serves another device (its serial must be new on this server); returns its transport id. */
  addDevice(device: VirtualDeviceHandle): number
  /**
   * Stops serving a device and drops its open connections (as pulling its cable does); false when
   * no device has that serial.
   */
  removeDevice(serial: string): boolean
  /** Devices currently served, in transport-id order. */
  devices(): VirtualDeviceHandle[]
  /**
   * Changes a device's state (`offline` simulates a pulled cable, `unauthorized` a pending RSA
   * prompt) and tells `host:track-devices` listeners. False when no device has that serial.
   */
  setDeviceState(serial: string, state: VirtualDeviceHandle['state']): boolean
  /** What the server holds for its clients now, to check that a misbehaving client stays bounded. */
  stats(): AdbServerStats
}

/** A snapshot of the server's buffers (bytes) and shell output counters. */
export interface AdbServerStats {
  /** Client connections open now. */
  readonly connections: number
  /** Bytes received and not consumed yet; a connection stops reading past 1 MiB of them. */
  readonly unreadBytes: number
  /** Bytes written and not taken by the clients' sockets yet (coalesced output + Node's buffers). */
  readonly unsentBytes: number
  /** Shell sessions whose command waits now for its client to read. */
  readonly stalledShells: number
  /** Socket writes of shell output so far (what one event-loop turn produced leaves in one write). */
  readonly shellWrites: number
}

/** 127.0.0.0/8, `::1` or `localhost`: the addresses the server binds without `allowNetwork`. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127(\.\d{1,3}){3}$/.test(host)
}

function duplicateSerial(serial: string): EnergyError {
  return new EnergyError({
    code: AdbServerErrors.DUPLICATE_SERIAL,
    message: `a device with serial '${serial}' is already served`,
    hint: 'Give every virtual device on one server its own serial.',
    details: { serial },
  })
}

interface Served {
  readonly device: VirtualDeviceHandle
  readonly transportId: number
}

/** Starts a server; rejects with an `EnergyError` for a non-loopback host or a busy port. */
export async function startAdbServer(options: AdbServerOptions = {}): Promise<AdbServer> {
  const host = options.host ?? '127.0.0.1'
  if (!isLoopback(host) && options.allowNetwork !== true) {
    throw new EnergyError({
      code: AdbServerErrors.NOT_LOOPBACK,
      message: `refusing to serve virtual devices on ${host}: only loopback addresses are allowed`,
      hint: "Use a loopback host such as '127.0.0.1' (the default); serving on a network is for a trusted lab network only, and must be asked for (`vitest-energy virtual-device --host`).",
      details: { host },
    })
  }
  const seen = new Set<string>()
  for (const d of options.devices ?? []) {
    if (seen.has(d.serial)) throw duplicateSerial(d.serial)
    seen.add(d.serial)
  }
  const served = new Map<string, Served>()
  let nextTransportId = 1
  const sockets = new Set<Socket>()
  const readers = new Set<SocketReader>()
  const outputs = new Set<SocketOutput>()
  const counters: OutputCounters = { writes: 0 }
  const trackers = new Set<Socket>()
  /** Trackers that have not read the last list yet: they get the newest one once they drain. */
  const behind = new Set<Socket>()
  /** Connections serving each device (closed when the device is removed, as an unplug does). */
  const deviceSockets = new Map<string, Set<Socket>>()
  let resolveClosed: () => void = () => undefined
  const closed = new Promise<void>((resolve) => {
    resolveClosed = resolve
  })

  const deviceList = (long: boolean): string =>
    [...served.values()]
      .map(({ device, transportId }) => {
        if (!long) return `${device.serial}\t${device.state}\n`
        const info = (key: string, prop: string, sanitize: boolean): string => {
          const value = device.props.get(prop) ?? ''
          if (value === '') return ''
          return ` ${key}${sanitize ? value.replace(/[^A-Za-z0-9._-]/g, '_') : value}`
        }
        return `${device.serial.padEnd(22)} ${device.state} usb:1-${transportId}${info('product:', 'ro.product.name', false)}${info('model:', 'ro.product.model', true)}${info('device:', 'ro.product.device', false)} transport_id:${transportId}\n`
      })
      .join('')

  /**
   * Sends the device list to a tracker; one that has not read the previous lists gets only the
   * newest once it drains (each list is complete), so a tracker that never reads costs one list.
   */
  const sendDeviceList = (t: Socket): void => {
    if (t.destroyed || behind.has(t)) return
    if (t.writableNeedDrain) {
      behind.add(t)
      t.once('drain', () => {
        behind.delete(t)
        sendDeviceList(t)
      })
      return
    }
    t.write(encodeData(deviceList(false)))
  }

  const forwards = new ForwardTable(host, (serial) => {
    const s = served.get(serial)
    return s !== undefined && s.device.state === 'device' ? s.device : undefined
  })

  /**
   * `forward:[norebind:]<local>;<remote>` and `killforward:<local>` for one device: adb answers
   * `OKAY` (the device was found), then `OKAY` and, for a forward, the host port bound (what
   * `adb forward tcp:0 …` prints), or `FAIL` with the reason.
   */
  const forwardRequest = async (serial: string, request: string): Promise<Buffer> => {
    if (request.startsWith('killforward:')) {
      const r = forwards.remove(request.slice('killforward:'.length))
      return Buffer.concat([encodeOkay(), r.ok ? encodeOkay() : encodeFail(r.message)])
    }
    let spec = request.slice('forward:'.length)
    const norebind = spec.startsWith('norebind:')
    if (norebind) spec = spec.slice('norebind:'.length)
    const [local = '', remote = ''] = spec.split(';')
    const r = await forwards.add(serial, local, remote, norebind)
    return Buffer.concat([encodeOkay(), r.ok ? encodeOkay(String(r.port)) : encodeFail(r.message)])
  }

  /**
   * The forward requests, wherever they arrive (`host:`, `host-serial:<s>:`, or `host:` after a
   * transport switch): the reply, or undefined when `query` is not one. `forward`/`killforward`
   * need the device (`serial`); `list-forward` lists `listSerial`'s forwards, or all.
   */
  const forwardQuery = async (
    query: string,
    serial?: string,
    listSerial?: string,
  ): Promise<Buffer | undefined> => {
    if (query.startsWith('forward:') || query.startsWith('killforward:')) {
      return serial === undefined ? undefined : forwardRequest(serial, query)
    }
    if (query === 'killforward-all') {
      // adb removes every forward, whichever device the request named.
      forwards.removeAll()
      return Buffer.concat([encodeOkay(), encodeOkay()])
    }
    if (query === 'list-forward') {
      return encodeOkay(
        forwards
          .list()
          .filter((f) => listSerial === undefined || f.serial === listSerial)
          .map((f) => `${f.serial} ${f.local} ${f.remote}\n`)
          .join(''),
      )
    }
    return undefined
  }

  const notifyTrackers = (): void => {
    for (const t of trackers) sendDeviceList(t)
  }

  const server = net.createServer((socket) => {
    sockets.add(socket)
    socket.setNoDelay(true)
    // A client vanishing (ECONNRESET, EPIPE) must never take the server down.
    socket.on('error', () => undefined)
    socket.on('close', () => {
      sockets.delete(socket)
      trackers.delete(socket)
      behind.delete(socket)
    })
    handleConnection(socket).catch(() => {
      socket.destroy()
    })
  })

  /** Serves one connection; afterwards whatever the client still sends is dropped. */
  async function handleConnection(socket: Socket): Promise<void> {
    const reader = new SocketReader(socket)
    readers.add(reader)
    socket.once('close', () => readers.delete(reader))
    try {
      await serveConnection(socket, reader)
    } finally {
      reader.discard()
    }
  }

  type Resolution = { ok: true; served: Served } | { ok: false; message: string }

  const resolveDevice = (selector: string): Resolution => {
    let candidates: Served[]
    if (selector.startsWith('serial:')) {
      const serial = selector.slice('serial:'.length)
      const s = served.get(serial)
      if (s === undefined) return { ok: false, message: `device '${serial}' not found` }
      candidates = [s]
    } else if (selector.startsWith('transport-id:') || selector.startsWith('id:')) {
      const id = Number(selector.slice(selector.indexOf(':') + 1))
      const s = [...served.values()].find((x) => x.transportId === id)
      if (s === undefined) return { ok: false, message: `no device with transport id '${id}'` }
      candidates = [s]
    } else {
      candidates = [...served.values()]
      if (candidates.length === 0) return { ok: false, message: 'no devices/emulators found' }
      if (candidates.length > 1) return { ok: false, message: 'more than one device/emulator' }
    }
    const s = candidates[0]
    if (s === undefined) return { ok: false, message: 'no devices/emulators found' }
    if (s.device.state === 'offline') return { ok: false, message: 'device offline' }
    if (s.device.state === 'unauthorized') {
      return {
        ok: false,
        message:
          "device unauthorized.\nThis adb server's $ADB_VENDOR_KEYS is not set\nTry 'adb kill-server' if that seems wrong.\nOtherwise check for a confirmation dialog on your device.",
      }
    }
    return { ok: true, served: s }
  }

  /** `host-serial:<serial>:<rest>`: serials may contain ':' (e.g. `127.0.0.1:5555`). */
  const splitSerial = (text: string): [string, string] | undefined => {
    let best: string | undefined
    for (const serial of served.keys()) {
      if (text.startsWith(`${serial}:`) && (best === undefined || serial.length > best.length)) {
        best = serial
      }
    }
    if (best !== undefined) return [best, text.slice(best.length + 1)]
    const i = text.lastIndexOf(':')
    return i < 0 ? undefined : [text.slice(0, i), text.slice(i + 1)]
  }

  async function serveConnection(socket: Socket, reader: SocketReader): Promise<void> {
    const reply = (b: Buffer): void => {
      if (!socket.destroyed) socket.write(b)
    }
    const failAndClose = (message: string): void => {
      reply(encodeFail(message))
      socket.end()
    }
    const request = await readRequest(reader)
    if (request === undefined) return
    if (!request.ok) {
      failAndClose(request.reason)
      return
    }
    const service = request.service

    // Device-specific host queries: host-serial:<serial>:<q>, host-transport-id:<id>:<q>, host-usb:, host-local:
    let selector: string | undefined
    let query = service
    if (service.startsWith('host-serial:')) {
      const split = splitSerial(service.slice('host-serial:'.length))
      if (split === undefined) {
        failAndClose('unknown host service')
        return
      }
      selector = `serial:${split[0]}`
      query = split[1]
    } else if (service.startsWith('host-transport-id:')) {
      const rest = service.slice('host-transport-id:'.length)
      const i = rest.indexOf(':')
      selector = `transport-id:${rest.slice(0, i)}`
      query = rest.slice(i + 1)
    } else if (service.startsWith('host-usb:') || service.startsWith('host-local:')) {
      selector = 'any'
      query = service.slice(service.indexOf(':') + 1)
    } else if (service.startsWith('host:')) {
      query = service.slice('host:'.length)
    } else {
      failAndClose('unknown host service')
      return
    }

    if (selector !== undefined) {
      if (query.startsWith('wait-for-')) {
        const r = resolveDevice(selector)
        if (!r.ok) {
          failAndClose(r.message)
          return
        }
        reply(Buffer.concat([encodeOkay(), encodeOkay()]))
        socket.end()
        return
      }
      const r = resolveDevice(selector)
      if (!r.ok && !(query === 'get-state' && r.message.startsWith('device '))) {
        failAndClose(r.message)
        return
      }
      const d = r.ok ? r.served : served.get(selector.slice('serial:'.length))
      if (d === undefined) {
        failAndClose('device not found')
        return
      }
      const forwarded = await forwardQuery(query, d.device.serial, d.device.serial)
      if (forwarded !== undefined) {
        reply(forwarded)
        socket.end()
        return
      }
      switch (query) {
        case 'features':
          // An empty feature list keeps both clients on the legacy shell and sync protocols.
          reply(encodeOkay(''))
          break
        case 'get-state':
          reply(encodeOkay(d.device.state))
          break
        case 'get-serialno':
          reply(encodeOkay(d.device.serial))
          break
        case 'get-devpath':
          reply(encodeOkay(`usb:1-${d.transportId}`))
          break
        default:
          reply(encodeFail('unknown host service'))
      }
      socket.end()
      return
    }

    switch (query) {
      case 'version':
        reply(encodeOkay(ADB_SERVER_VERSION.toString(16).padStart(4, '0')))
        socket.end()
        return
      case 'devices':
      case 'devices-l':
        reply(encodeOkay(deviceList(query === 'devices-l')))
        socket.end()
        return
      case 'track-devices':
        trackers.add(socket)
        reply(encodeOkay(deviceList(false)))
        return
      case 'features':
      case 'host-features':
        reply(encodeOkay(''))
        socket.end()
        return
      case 'list-forward':
      case 'killforward-all':
        reply((await forwardQuery(query)) ?? encodeFail('unknown host service'))
        socket.end()
        return
      case 'kill':
        reply(encodeOkay())
        socket.end()
        void close()
        return
    }

    let transportSelector: string | undefined
    let sendTransportId = false
    if (query.startsWith('transport:'))
      transportSelector = `serial:${query.slice('transport:'.length)}`
    else if (query.startsWith('transport-id:')) transportSelector = query
    else if (
      query === 'transport-any' ||
      query === 'transport-usb' ||
      query === 'transport-local'
    ) {
      transportSelector = 'any'
    } else if (query.startsWith('tport:')) {
      sendTransportId = true
      const what = query.slice('tport:'.length)
      transportSelector = what === 'any' || what === 'usb' || what === 'local' ? 'any' : what
    }
    if (transportSelector === undefined) {
      failAndClose('unknown host service')
      return
    }
    const r = resolveDevice(transportSelector)
    if (!r.ok) {
      failAndClose(r.message)
      return
    }
    const { device, transportId } = r.served
    if (sendTransportId) {
      const id = Buffer.alloc(8)
      id.writeBigUInt64LE(BigInt(transportId))
      reply(Buffer.concat([encodeOkay(), id]))
    } else reply(encodeOkay())
    await serveDevice(device, socket, reader)
  }

  /** After a transport switch: one device service per connection. */
  async function serveDevice(
    device: VirtualDeviceHandle,
    socket: Socket,
    reader: SocketReader,
  ): Promise<void> {
    let open = deviceSockets.get(device.serial)
    if (open === undefined) {
      open = new Set()
      deviceSockets.set(device.serial, open)
    }
    const mine = open
    mine.add(socket)
    socket.once('close', () => mine.delete(socket))
    const request = await readRequest(reader)
    if (request === undefined) return
    if (!request.ok) {
      socket.write(encodeFail(request.reason))
      socket.end()
      return
    }
    const service = request.service
    // adb 1.0.41 sends `host:forward:…` (and killforward) after `host:tport:…` on one connection.
    if (service.startsWith('host:')) {
      const query = service.slice('host:'.length)
      socket.write((await forwardQuery(query, device.serial)) ?? encodeFail('unknown host service'))
      socket.end()
      return
    }
    const tcp = tcpPort(service)
    if (tcp !== undefined) {
      if (!device.tcpListeners.has(tcp)) {
        socket.write(encodeFail('closed'))
        socket.end()
        return
      }
      socket.write(encodeOkay())
      const closed = new Promise((resolve) => socket.once('close', resolve))
      connectDevicePort(device, tcp, adbStream(socket, reader))
      // The stream reads from `reader` until the connection ends (the caller then discards).
      await closed
      return
    }
    const shell = /^(shell(?:,[^:]*)?|exec):(.*)$/s.exec(service)
    if (shell !== null) {
      const commandLine = shell[2] ?? ''
      // Output leaves once per event-loop turn: a quick command's OKAY, output and FIN share a
      // segment, a long one streams, and a silent one (simpleperf record, a sleep) still gets its
      // OKAY at once (clients wait for it before they return the stream).
      const output = new SocketOutput(socket, counters)
      outputs.add(output)
      socket.once('close', () => outputs.delete(output))
      output.write(encodeOkay())
      const controller = new AbortController()
      const onClose = (): void => controller.abort('client disconnected')
      socket.once('close', onClose)
      if (commandLine.trim() === '') {
        try {
          await serveInteractiveShell(device, output, reader, controller.signal)
        } finally {
          socket.off('close', onClose)
        }
        return
      }
      // `pm install-write -S <size> …` (adb install-multiple) streams the APK's bytes after the
      // request: the command reads exactly that many. Other commands get no stdin from the legacy
      // stream: what the client sends is dropped.
      let stdin: Uint8Array | undefined
      const sized = INSTALL_WRITE.exec(commandLine)
      if (sized !== null) {
        const size = Number(sized[1])
        if (size > MAX_INSTALL_WRITE_BYTES) {
          output.write(`Error: APK of ${size} bytes exceeds the virtual device's limit\n`)
          output.end()
          return
        }
        // Chunk by chunk: the reader holds at most its high-water mark unread.
        const chunks: Buffer[] = []
        for (let got = 0; got < size;) {
          const chunk = await reader.readSome(size - got)
          if (chunk === undefined) break
          chunks.push(chunk)
          got += chunk.length
        }
        stdin = Buffer.concat(chunks)
      }
      reader.discard()
      const write = (chunk: string | Uint8Array): void => output.write(chunk)
      try {
        // Legacy (non-shell_v2) protocol: stderr is merged into the stream, no exit status.
        // The command waits for room after each command it runs (`ready`), so a client that does
        // not read stalls only it.
        await execShell(
          device,
          commandLine,
          { write, writeErr: write, ready: () => output.ready() },
          controller.signal,
          stdin,
        )
      } finally {
        socket.off('close', onClose)
        output.end()
      }
      return
    }
    if (service === 'sync:') {
      socket.write(encodeOkay())
      await serveSync(device, socket, reader)
      if (!socket.destroyed) socket.end()
      return
    }
    if (service === 'root:') {
      socket.write(encodeOkay())
      socket.end('adbd cannot run as root in production builds\n')
      return
    }
    socket.write(encodeFail('closed'))
    socket.end()
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error): void => {
      reject(
        new EnergyError({
          code: AdbServerErrors.LISTEN_FAILED,
          message: `cannot listen on ${host}:${options.port ?? 0}: ${error.message}`,
          hint: 'Pick another port, or pass port 0 to let the system choose a free one.',
          details: { host, port: options.port ?? 0 },
          cause: error,
        }),
      )
    }
    server.once('error', onError)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', onError)
      resolve()
    })
  })
  server.on('error', () => undefined)
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : (options.port ?? 0)

  let closing: Promise<void> | undefined
  function close(): Promise<void> {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve())
      forwards.close()
      for (const s of sockets) s.destroy()
    }).then(() => resolveClosed())
    return closing
  }

  const addDevice = (device: VirtualDeviceHandle): number => {
    if (served.has(device.serial)) throw duplicateSerial(device.serial)
    const transportId = nextTransportId++
    served.set(device.serial, { device, transportId })
    notifyTrackers()
    return transportId
  }
  for (const d of options.devices ?? []) addDevice(d)

  return {
    port,
    host,
    close,
    closed,
    addDevice,
    removeDevice(serial: string): boolean {
      const removed = served.delete(serial)
      if (removed) {
        // adb drops a device's forwards when the device goes away.
        forwards.removeAll(serial)
        for (const socket of deviceSockets.get(serial) ?? []) socket.destroy()
        deviceSockets.delete(serial)
        notifyTrackers()
      }
      return removed
    },
    devices: () => [...served.values()].map((s) => s.device),
    stats() {
      let unreadBytes = 0
      for (const r of readers) unreadBytes += r.pending
      let unsentBytes = 0
      for (const s of sockets) unsentBytes += s.writableLength
      let stalledShells = 0
      for (const o of outputs) {
        unsentBytes += o.queued
        if (o.stalled) stalledShells++
      }
      return {
        connections: sockets.size,
        unreadBytes,
        unsentBytes,
        stalledShells,
        shellWrites: counters.writes,
      }
    },
    setDeviceState(serial, state) {
      const s = served.get(serial)
      if (s === undefined) return false
      if (s.device.state !== state) {
        s.device.state = state
        notifyTrackers()
      }
      return true
    },
  }
}
