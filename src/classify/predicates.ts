/**
 * Pure predicates the matchers wrap (`expect(method).toBeGreen()`, `.not.toBeRed()`). They take
 * anything with an optional colour: a `ClassifiedMethod`, or a `MethodEnergy` after the classifier
 * ran. A method without a colour is neither green nor red.
 */
import type { MethodColor } from '../model/index.js'

export interface Colored {
  readonly color?: MethodColor
}

export function isGreen(method: Colored): boolean {
  return method.color === 'green'
}

export function isRed(method: Colored): boolean {
  return method.color === 'red'
}

export function isYellow(method: Colored): boolean {
  return method.color === 'yellow'
}
