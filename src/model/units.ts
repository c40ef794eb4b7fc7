/**
 * Units as brands. Brands vanish at runtime (results must survive JSON and worker RPC), so every
 * serialized field also carries its unit in its name: `energyJ`, `powerW`, `tNs`, `durationS`.
 * SI inside the tool; human units (mJ, mW, mAh, %) only at the edges (reporter, CLI, matchers).
 */

export type Brand<T, U extends string> = T & { readonly __unit: U }

export type Joules = Brand<number, 'J'>
export type Watts = Brand<number, 'W'>
export type Seconds = Brand<number, 's'>
export type Nanoseconds = Brand<number, 'ns'>
export type Microseconds = Brand<number, 'us'>
export type Amperes = Brand<number, 'A'>
export type Volts = Brand<number, 'V'>

/** Brand a raw number. It is up to the caller to make sure the value really is in that unit. */
export const joules = (value: number): Joules => value as Joules
export const watts = (value: number): Watts => value as Watts
export const seconds = (value: number): Seconds => value as Seconds
export const nanoseconds = (value: number): Nanoseconds => value as Nanoseconds

export const NS_PER_S = 1e9
export const NS_PER_MS = 1e6
export const NS_PER_US = 1e3

export const nsToS = (ns: number): Seconds => (ns / NS_PER_S) as Seconds
export const sToNs = (s: number): Nanoseconds => (s * NS_PER_S) as Nanoseconds
export const usToNs = (us: number): Nanoseconds => (us * NS_PER_US) as Nanoseconds
export const msToNs = (ms: number): Nanoseconds => (ms * NS_PER_MS) as Nanoseconds

/** Energy of a constant power over a duration. */
export const powerToEnergy = (powerW: number, durationNs: number): Joules =>
  ((powerW * durationNs) / NS_PER_S) as Joules

/** Average power of an energy spread over a duration (0 for an empty window). */
export const energyToPower = (energyJ: number, durationNs: number): Watts =>
  (durationNs > 0 ? (energyJ * NS_PER_S) / durationNs : 0) as Watts

/** Battery charge to energy: mAh × 3.6 C/mAh × V. */
export const mAhToJ = (mAh: number, volts: number): Joules => (mAh * 3.6 * volts) as Joules

/** Electrical power from current and voltage. */
export const currentToPower = (amperes: number, volts: number): Watts => (amperes * volts) as Watts

/** ODPM rails count µWs (= µJ). */
export const uWsToJ = (uWs: number): Joules => (uWs / 1e6) as Joules
