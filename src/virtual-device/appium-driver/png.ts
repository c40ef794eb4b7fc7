/**
 * Screenshots of the virtual screen: the hierarchy's views drawn as solid rectangles (clickable
 * views filled, every view outlined, text shown as a dark bar as long as the text) and encoded as
 * an 8-bit RGB PNG with zlib. No fonts: this shows layout, not glyphs.
 */
import { deflateSync } from 'node:zlib'
import { descendants, screenSize, type Rect, type UiNode } from './hierarchy.js'

type Rgb = readonly [number, number, number]

const WHITE: Rgb = [255, 255, 255]
const OUTLINE: Rgb = [176, 176, 176]
const CLICKABLE: Rgb = [219, 232, 255]
const CLICKABLE_EDGE: Rgb = [66, 133, 244]
const TEXT: Rgb = [33, 33, 33]
const STATUS_BAR: Rgb = [32, 33, 36]

/** An RGB raster. */
export interface Canvas {
  readonly width: number
  readonly height: number
  readonly pixels: Uint8Array
}

export function createCanvas(width: number, height: number, fill: Rgb = WHITE): Canvas {
  const pixels = new Uint8Array(width * height * 3)
  for (let i = 0; i < pixels.length; i += 3) {
    pixels[i] = fill[0]
    pixels[i + 1] = fill[1]
    pixels[i + 2] = fill[2]
  }
  return { width, height, pixels }
}

/** Fills a rectangle, clipped to the canvas. */
export function fillRect(canvas: Canvas, r: Rect, color: Rgb): void {
  const x0 = Math.max(0, Math.floor(r.x))
  const y0 = Math.max(0, Math.floor(r.y))
  const x1 = Math.min(canvas.width, Math.floor(r.x + r.width))
  const y1 = Math.min(canvas.height, Math.floor(r.y + r.height))
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = (y * canvas.width + x) * 3
      canvas.pixels[i] = color[0]
      canvas.pixels[i + 1] = color[1]
      canvas.pixels[i + 2] = color[2]
    }
  }
}

function strokeRect(canvas: Canvas, r: Rect, color: Rgb, px: number): void {
  fillRect(canvas, { x: r.x, y: r.y, width: r.width, height: px }, color)
  fillRect(canvas, { x: r.x, y: r.y + r.height - px, width: r.width, height: px }, color)
  fillRect(canvas, { x: r.x, y: r.y, width: px, height: r.height }, color)
  fillRect(canvas, { x: r.x + r.width - px, y: r.y, width: px, height: r.height }, color)
}

/** Draws the hierarchy as the screen would roughly look. */
export function renderScreen(root: UiNode): Canvas {
  const { width, height } = screenSize(root)
  const canvas = createCanvas(width, height)
  fillRect(canvas, { x: 0, y: 0, width, height: Math.round(height * 0.025) }, STATUS_BAR)
  for (const node of descendants(root)) {
    const r = node.rect
    if (r === undefined || r.width <= 0 || r.height <= 0) continue
    const fullScreen = r.x <= 0 && r.y <= 0 && r.width >= width && r.height >= height
    if (node.attrs['clickable'] === 'true' && !fullScreen) {
      fillRect(canvas, r, CLICKABLE)
      strokeRect(canvas, r, CLICKABLE_EDGE, 4)
    } else if (!fullScreen) {
      strokeRect(canvas, r, OUTLINE, 2)
    }
    const text = node.attrs['text'] ?? ''
    if (text !== '') {
      const barHeight = Math.min(28, Math.max(4, Math.floor(r.height / 3)))
      const barWidth = Math.min(r.width - 32, text.length * 18)
      if (barWidth > 0) {
        fillRect(
          canvas,
          {
            x: r.x + 16,
            y: r.y + Math.floor((r.height - barHeight) / 2),
            width: barWidth,
            height: barHeight,
          },
          TEXT,
        )
      }
    }
  }
  return canvas
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256)
  for (let n = 0; n < 256; n++) {
    let c = n
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
    table[n] = c >>> 0
  }
  return table
})()

/** CRC-32 (ISO 3309), as PNG chunks use it. */
export function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff
  for (const b of bytes) c = (CRC_TABLE[(c ^ b) & 0xff] ?? 0) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

function chunk(type: string, data: Uint8Array): Buffer {
  const out = Buffer.alloc(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, 'latin1')
  Buffer.from(data.buffer, data.byteOffset, data.byteLength).copy(out, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}

/** Encodes the canvas as a PNG (colour type 2, 8 bits, no interlace, filter 0 on every row). */
export function encodePng(canvas: Canvas): Buffer {
  const { width, height, pixels } = canvas
  const stride = width * 3
  const raw = Buffer.alloc((stride + 1) * height)
  for (let y = 0; y < height; y++) {
    raw[y * (stride + 1)] = 0
    Buffer.from(pixels.buffer, pixels.byteOffset + y * stride, stride).copy(
      raw,
      y * (stride + 1) + 1,
    )
  }
  const header = Buffer.alloc(13)
  header.writeUInt32BE(width, 0)
  header.writeUInt32BE(height, 4)
  header[8] = 8
  header[9] = 2
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 6 })),
    chunk('IEND', new Uint8Array(0)),
  ])
}
