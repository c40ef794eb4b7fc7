import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import * as zlib from 'node:zlib'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  crc32,
  encodePng,
  parseHierarchy,
  renderScreen,
} from '../../../src/virtual-device/appium-driver/index.js'
import { createCanvas, fillRect } from '../../../src/virtual-device/appium-driver/png.js'

// sharp (libvips) is installed as a dependency of @appium/support; it decodes our PNGs as a
// reference decoder. Skipped with a notice if a platform has no prebuilt sharp.
type SharpFn = (input: Buffer) => {
  raw(): {
    toBuffer(opts: {
      resolveWithObject: true
    }): Promise<{ data: Buffer; info: { width: number; height: number; channels: number } }>
  }
}
let sharp: SharpFn | undefined
try {
  sharp = createRequire(import.meta.url)('sharp') as SharpFn
} catch {
  sharp = undefined
}
if (sharp === undefined)
  console.warn('png.test: sharp is not loadable; the reference-decoder test is skipped')

const nodeCrc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32

describe('PNG encoder', () => {
  test.skipIf(nodeCrc32 === undefined)('crc32 matches zlib.crc32', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expect(crc32(bytes)).toBe(nodeCrc32!(bytes))
      }),
    )
    expect(crc32(new TextEncoder().encode('IEND'))).toBe(0xae426082)
  })

  test.skipIf(sharp === undefined)('libvips decodes exactly the pixels we drew', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.array(
          fc.tuple(
            fc.integer({ min: -5, max: 45 }),
            fc.integer({ min: -5, max: 45 }),
            fc.nat(20),
            fc.nat(20),
            fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)),
          ),
          { maxLength: 5 },
        ),
        async (width, height, rects) => {
          const canvas = createCanvas(width, height)
          for (const [x, y, w, h, color] of rects)
            fillRect(canvas, { x, y, width: w, height: h }, color)
          const { data, info } = await sharp!(encodePng(canvas))
            .raw()
            .toBuffer({ resolveWithObject: true })
          expect([info.width, info.height, info.channels]).toEqual([width, height, 3])
          expect(Buffer.compare(data, Buffer.from(canvas.pixels))).toBe(0)
        },
      ),
      { numRuns: 40 },
    )
  })

  test('the screen rendering of the Trails feed', () => {
    const root = parseHierarchy(
      readFileSync(
        new URL('../../fixtures/appium-driver/trails-feed.xml', import.meta.url),
        'utf8',
      ),
    )
    const canvas = renderScreen(root)
    expect([canvas.width, canvas.height]).toEqual([1080, 2400])
    const at = (x: number, y: number): number[] => {
      const i = (y * canvas.width + x) * 3
      return [...canvas.pixels.subarray(i, i + 3)]
    }
    expect(at(10, 10), 'status bar').toEqual([32, 33, 36])
    // Refresh button [780,80][1060,230]: clickable fill, blue edge, text bar for "Refresh".
    expect(at(1000, 100), 'button fill').toEqual([219, 232, 255])
    expect(at(781, 150), 'button edge').toEqual([66, 133, 244])
    expect(at(800, 155), 'text bar').toEqual([33, 33, 33])
    const png = encodePng(canvas)
    expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    expect(png.readUInt32BE(16)).toBe(1080)
    expect(png.readUInt32BE(20)).toBe(2400)
  })
})
