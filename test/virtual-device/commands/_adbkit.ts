/** adbkit, the ADB client the product uses, driven directly: tests that check the simulated phone over real ADB. */
import { createRequire } from 'node:module'
import type { Duplex } from 'node:stream'
import type * as AdbkitNs from '@devicefarmer/adbkit'
import type { Client } from '@devicefarmer/adbkit'

export const adbkit = createRequire(import.meta.url)('@devicefarmer/adbkit') as typeof AdbkitNs

/** A client of the ADB server on 127.0.0.1:`port` that never spawns a local adb. */
export function adbkitClient(port: number): Client {
  return adbkit.Adb.createClient({ host: '127.0.0.1', port, bin: '/nonexistent-adb' })
}

/** Runs a shell command line; the output as text. */
export async function adbkitShell(c: Client, serial: string, command: string): Promise<string> {
  const stream: Duplex = await c.getDevice(serial).shell(command)
  return Buffer.from(await adbkit.Adb.util.readAll(stream)).toString('utf8')
}

/** Pulls a file into memory. */
export async function adbkitPull(c: Client, serial: string, path: string): Promise<Buffer> {
  const transfer = await c.getDevice(serial).pull(path)
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    transfer.on('data', (d: Buffer) => chunks.push(d))
    transfer.on('end', () => resolve(Buffer.concat(chunks)))
    transfer.on('error', reject)
  })
}
