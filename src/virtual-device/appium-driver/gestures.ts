/**
 * W3C pointer actions (`POST /session/:id/actions`) as the gestures a phone's input layer makes:
 * pointerDown then pointerUp in place is a tap, with the pointer moved in between a swipe from the
 * down to the up position. Shared by the VirtualDevice driver (which injects them with `input`
 * over adb) and the emulated UiAutomator2 server (which injects them into the simulation).
 */

/** One action of a pointer input source, as the client sends it. */
export type PointerAction = Readonly<Record<string, unknown>>

export type Gesture =
  | { readonly kind: 'tap'; readonly x: number; readonly y: number }
  | {
      readonly kind: 'swipe'
      readonly from: readonly [number, number]
      readonly to: readonly [number, number]
      /** How long the pointer was down: the moves' and pauses' durations between down and up. */
      readonly pressedMs: number
    }

/** W3C element reference key. */
export const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf'

/** The element a pointerMove is relative to, if any: its id, or '' when the origin is malformed. */
function originElement(action: PointerAction): string | undefined {
  const origin = action['origin']
  if (typeof origin !== 'object' || origin === null) return undefined
  const ref = origin as Record<string, unknown>
  const id = ref[ELEMENT_KEY] ?? ref['ELEMENT']
  return typeof id === 'string' ? id : ''
}

/** The elements the actions' moves are relative to, so a caller can look them up first. */
export function originElementIds(actions: readonly PointerAction[]): string[] {
  const ids = new Set<string>()
  for (const action of actions) {
    if (action['type'] !== 'pointerMove') continue
    const id = originElement(action)
    if (id !== undefined && id !== '') ids.add(id)
  }
  return [...ids]
}

/**
 * The gestures one pointer's actions make, each as its pointerUp is reached: a caller that injects
 * a gesture before taking the next has later moves' origin elements looked up on the screen the
 * earlier gestures left. `centreOf` gives an origin element's centre; `invalid` makes the
 * protocol's invalid-argument error.
 */
export function* pointerGestures(
  actions: readonly PointerAction[],
  centreOf: (elementId: string) => readonly [number, number],
  invalid: (message: string) => Error,
): Generator<Gesture> {
  const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v ?? 0))
  let pos: readonly [number, number] = [0, 0]
  let down: readonly [number, number] | undefined
  let pressedMs = 0
  for (const action of actions) {
    const type = action['type']
    if (type === 'pause') {
      if (down !== undefined) pressedMs += num(action['duration'])
    } else if (type === 'pointerMove') {
      const element = originElement(action)
      if (element === '') throw invalid('pointerMove origin is not an element')
      const base: readonly [number, number] =
        element !== undefined ? centreOf(element) : action['origin'] === 'pointer' ? pos : [0, 0]
      pos = [Math.round(base[0] + num(action['x'])), Math.round(base[1] + num(action['y']))]
      if (down !== undefined) pressedMs += num(action['duration'])
    } else if (type === 'pointerDown') {
      down = pos
    } else if (type === 'pointerUp' && down !== undefined) {
      yield down[0] === pos[0] && down[1] === pos[1]
        ? { kind: 'tap', x: down[0], y: down[1] }
        : { kind: 'swipe', from: down, to: pos, pressedMs }
      down = undefined
      pressedMs = 0
    }
  }
}
