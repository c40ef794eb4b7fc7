/** The shared wire encoder (golden bytes) and the server's framing under arbitrary TCP chunking. */
import { createHash } from 'node:crypto'
import net from 'node:net'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startAdbServer, type AdbServer } from '../../../src/virtual-device/adb/server.js'
import {
  encodeData,
  encodeFail,
  encodeOkay,
  syncDent,
  syncFrame,
  syncHeader,
  syncStat,
} from '../../../src/virtual-device/adb/wire.js'
import { createDevice } from '../../../src/virtual-device/device.js'
import type { VirtualDeviceHandle } from '../../../src/virtual-device/contract.js'

describe('wire encoders', () => {
  it('smart-socket framing: 4 lower-case hex digits + payload', () => {
    expect(encodeData('host:version').toString()).toBe('000chost:version')
    expect(encodeOkay().toString()).toBe('OKAY')
    expect(encodeOkay('0029').toString()).toBe('OKAY00040029')
    expect(encodeFail("device 'x' not found").toString()).toBe("FAIL0014device 'x' not found")
    // The length counts UTF-8 bytes, not characters.
    expect(encodeData('é').toString('hex')).toBe('30303032c3a9')
  })

  it('sync framing: id + little-endian u32', () => {
    expect(syncHeader('DATA', 65536).toString('hex')).toBe('4441544100000100')
    expect(syncFrame('RECV', '/a').toString('hex')).toBe('52454356020000002f61')
    expect(syncStat('STAT', 0o100644, 5, 1_700_000_000).toString('hex')).toBe(
      '53544154a48100000500000000f15365',
    )
    expect(syncDent(0o40755, 4096, 1, 'ab').toString('hex')).toBe(
      '44454e54ed4100000010000001000000020000006162',
    )
  })
})

describe('server framing survives arbitrary TCP chunking', () => {
  let server: AdbServer
  let device: VirtualDeviceHandle
  beforeAll(async () => {
    device = createDevice({ serial: 'chunky' })
    server = await startAdbServer({ devices: [device] })
  })
  afterAll(async () => {
    await server.close()
  })

  /** Sends `bytes` split at `cuts`, resolves with everything the server sent until it closed. */
  const sendChunked = (bytes: Buffer, cuts: number[]): Promise<Buffer> =>
    new Promise((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1')
      socket.setNoDelay(true)
      const got: Buffer[] = []
      socket.on('data', (c: Buffer) => got.push(c))
      socket.on('error', reject)
      socket.on('close', () => resolve(Buffer.concat(got)))
      const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
      let last = 0
      const parts: Buffer[] = []
      for (const p of [...points, bytes.length]) {
        parts.push(bytes.subarray(last, p))
        last = p
      }
      const writeNext = (): void => {
        const part = parts.shift()
        if (part === undefined) {
          socket.end()
          return
        }
        socket.write(part, () => setImmediate(writeNext))
      }
      writeNext()
    })

  it('SEND of random data in random pieces writes exactly those bytes, then QUIT closes', async () => {
    let n = 0
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 0, maxLength: 150_000 }),
        fc.array(fc.nat(), { maxLength: 12 }),
        async (data, cuts) => {
          const path = `/data/local/tmp/p${n++}`
          const frames: Buffer[] = [
            encodeData('host:transport:chunky'),
            encodeData('sync:'),
            syncFrame('SEND', `${path},420`),
          ]
          for (let o = 0; o < data.length; o += 65536) {
            const part = data.subarray(o, o + 65536)
            frames.push(syncHeader('DATA', part.length), Buffer.from(part))
          }
          frames.push(syncHeader('DONE', 1_700_000_000), syncHeader('QUIT', 0))
          const reply = await sendChunked(Buffer.concat(frames), cuts)
          expect(reply.toString('latin1')).toBe('OKAYOKAY' + 'OKAY\0\0\0\0')
          const written = device.fs.readFile(path)
          const h = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex')
          expect(h(written)).toBe(h(data))
          expect(device.fs.stat(path)).toMatchObject({
            kind: 'file',
            mode: 0o644,
            mtimeS: 1_700_000_000,
          })
        },
      ),
      { numRuns: 25 },
    )
  })

  it('random garbage never crashes the server', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 200 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        async (junk, cuts) => {
          const reply = await sendChunked(Buffer.from(junk), cuts)
          // Either a FAIL with a message, an OKAY for a valid-looking request, or nothing (EOF mid-request).
          expect(['FAIL', 'OKAY', '']).toContain(reply.subarray(0, 4).toString('latin1'))
        },
      ),
      { numRuns: 60 },
    )
    expect((await sendChunked(encodeData('host:version'), [])).toString()).toBe('OKAY00040029')
  })
})
