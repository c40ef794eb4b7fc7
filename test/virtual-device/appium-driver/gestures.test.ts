// W3C pointer actions → the taps and swipes both Appium paths inject (the VirtualDevice driver over
// adb `input`, the emulated UiAutomator2 server into the simulation).
import { describe, expect, test } from 'vitest'
import {
  ELEMENT_KEY,
  originElementIds,
  pointerGestures,
  type PointerAction,
} from '../../../src/virtual-device/appium-driver/gestures.js'

const invalid = (message: string): Error => new Error(`invalid argument: ${message}`)
const nowhere = (): readonly [number, number] => {
  throw new Error('no element expected')
}
const gestures = (
  actions: PointerAction[],
  centreOf: (id: string) => readonly [number, number] = nowhere,
) => [...pointerGestures(actions, centreOf, invalid)]

describe('pointerGestures', () => {
  test('down and up in place is a tap at the pointer; with a move in between a swipe that lasts the pointer-down time', () => {
    expect(
      gestures([
        { type: 'pointerMove', x: 100, y: 200, duration: 0 },
        { type: 'pointerDown', button: 0 },
        { type: 'pointerUp', button: 0 },
      ]),
    ).toEqual([{ kind: 'tap', x: 100, y: 200 }])
    expect(
      gestures([
        { type: 'pointerMove', x: 500, y: 1800 },
        { type: 'pointerDown' },
        { type: 'pause', duration: 100 },
        { type: 'pointerMove', x: 500, y: 600, duration: 300 },
        { type: 'pointerUp' },
      ]),
    ).toEqual([{ kind: 'swipe', from: [500, 1800], to: [500, 600], pressedMs: 400 }])
  })

  test("moves relative to the pointer or to an element's centre; pauses before the press do not count", () => {
    const centre = (id: string): readonly [number, number] => (id === 'e1' ? [300, 400] : [0, 0])
    expect(
      gestures(
        [
          { type: 'pause', duration: 1000 },
          { type: 'pointerMove', origin: { [ELEMENT_KEY]: 'e1' }, x: 10, y: -10 },
          { type: 'pointerDown' },
          { type: 'pointerMove', origin: 'pointer', x: 0, y: 50, duration: 20 },
          { type: 'pointerUp' },
          { type: 'pointerMove', origin: { ELEMENT: 'e1' } },
          { type: 'pointerDown' },
          { type: 'pointerUp' },
        ],
        centre,
      ),
    ).toEqual([
      { kind: 'swipe', from: [310, 390], to: [310, 440], pressedMs: 20 },
      { kind: 'tap', x: 300, y: 400 },
    ])
  })

  test('a pointerUp without a pointerDown does nothing; an origin that is no element reference is an invalid argument', () => {
    expect(gestures([{ type: 'pointerUp' }, { type: 'pointerMove', x: 1, y: 1 }])).toEqual([])
    expect(() => gestures([{ type: 'pointerMove', origin: { id: 7 } }])).toThrow(
      'invalid argument: pointerMove origin is not an element',
    )
  })

  test('gestures come one at a time: an element a later move names is looked up after the earlier gesture is taken', () => {
    const log: string[] = []
    const actions: PointerAction[] = [
      { type: 'pointerMove', x: 1, y: 1 },
      { type: 'pointerDown' },
      { type: 'pointerUp' },
      { type: 'pointerMove', origin: { [ELEMENT_KEY]: 'late' } },
      { type: 'pointerDown' },
      { type: 'pointerUp' },
    ]
    for (const g of pointerGestures(
      actions,
      (id) => {
        log.push(`look up ${id}`)
        return [5, 5]
      },
      invalid,
    )) {
      log.push(g.kind)
    }
    expect(log).toEqual(['tap', 'look up late', 'tap'])
    expect(originElementIds(actions)).toEqual(['late'])
  })
})
