/** Shared helpers for the ADB server tests: real clients (adbkit, raw sockets, /usr/bin/adb). */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import net from 'node:net'
import type { Duplex } from 'node:stream'
import type * as AdbkitNs from '@devicefarmer/adbkit'
import type { Client } from '@devicefarmer/adbkit'
import { encodeData } from '../../../src/virtual-device/adb/wire.js'

type AdbkitModule = typeof AdbkitNs
const adbkit = createRequire(import.meta.url)('@devicefarmer/adbkit') as AdbkitModule

/** An adbkit client that can never spawn a real adb daemon. */
export function adbkitClient(port: number): Client {
  return adbkit.Adb.createClient({ host: '127.0.0.1', port, bin: '/nonexistent-adb' })
}

export async function readAll(stream: Duplex): Promise<Buffer> {
  return Buffer.from(await adbkit.Adb.util.readAll(stream))
}

export const ADB_BIN = '/usr/bin/adb'
export const hasAdb = existsSync(ADB_BIN)

/** Runs the real adb client against our port (never the default 5037). */
export function runAdb(
  port: number,
  args: readonly string[],
  options: { cwd?: string; input?: string } = {},
): Promise<{ code: number; stdout: Buffer; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(ADB_BIN, ['-P', String(port), ...args], {
      cwd: options.cwd,
      env: { ...process.env, ADB_SERVER_SOCKET: `tcp:127.0.0.1:${port}`, ANDROID_SERIAL: '' },
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    if (options.input !== undefined) child.stdin?.end(options.input)
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout?.on('data', (c: Buffer) => out.push(c))
    child.stderr?.on('data', (c: Buffer) => err.push(c))
    child.on('error', reject)
    child.on('close', (code) =>
      resolve({
        code: code ?? -1,
        stdout: Buffer.concat(out),
        stderr: Buffer.concat(err).toString(),
      }),
    )
  })
}

/** A raw client socket: send bytes, read everything until the server closes. */
export function rawExchange(
  port: number,
  payload: Buffer | readonly Buffer[],
  options: { closeAfterBytes?: number } = {},
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    const chunks: Buffer[] = []
    let received = 0
    socket.on('data', (c: Buffer) => {
      chunks.push(c)
      received += c.length
      if (options.closeAfterBytes !== undefined && received >= options.closeAfterBytes) {
        socket.destroy()
        resolve(Buffer.concat(chunks))
      }
    })
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks)))
    for (const p of Array.isArray(payload) ? payload : [payload]) socket.write(p)
  })
}

/** Connects and switches to a device transport; resolves with the socket once OKAY arrived. */
export function transportSocket(port: number, serial: string): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(encodeData(`host:transport:${serial}`))
    })
    socket.once('error', reject)
    socket.once('data', (c: Buffer) => {
      if (c.subarray(0, 4).toString() !== 'OKAY') reject(new Error(c.toString()))
      else resolve(socket)
    })
  })
}
