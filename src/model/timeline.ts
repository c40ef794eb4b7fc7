/**
 * What a window's summary carries so a report can draw it: the power sensor's readings thinned to
 * a bounded number of buckets that keep their energy, the app's method activity on the same
 * buckets, and the call tree of where the window's method energy went. Plain JSON, like the rest
 * of `EnergyResult` (docs/reporter.md, "What the report holds").
 */
import type { Component } from './energy.js'

/** At most this many buckets per window (so ≤ 200 points per rail): `thinPower` in attribution. */
export const TIMELINE_MAX_BUCKETS = 200
/** Activity lanes kept per window: its methods with the most self energy. */
export const TIMELINE_MAX_LANES = 8
/** Call-tree nodes kept per window, the "other" nodes included. */
export const CALL_TREE_MAX_NODES = 300

/** One rail (or the whole device, for a single power source) over the window's buckets. */
export interface TimelineSeries {
  /** The rail as the device names it, or the power source for a whole-device series. */
  readonly name: string
  readonly subsystem?: string
  /**
   * Average power in each bucket, W: the bucket's energy divided by its length, so
   * Σ powerW[i] × (edgesS[i+1] − edgesS[i]) is the energy the sensor measured over them.
   */
  readonly powerW: readonly number[]
}

/** When a method was running, bucket by bucket. */
export interface ActivityLane {
  readonly method: string
  /**
   * How many of the app's threads had the method on their stack, on average over each bucket
   * (1: one thread all the bucket long): stack samples' CPU time, or a method trace's wall time.
   */
  readonly busy: readonly number[]
}

/** Asynchronous energy already running when the window opened (a GPS an earlier test left on). */
export interface CarriedInEnergy {
  readonly component: Component
  readonly rail: string
  /** Above the rail's idle floor inside the window, J. */
  readonly energyJ: number
  /** When it stopped drawing, or the window's end if it outlived it, s from the window's start. */
  readonly untilS: number
  /** The app method that started it and the window it started in, when this phone remembers. */
  readonly method?: string
  readonly window?: string
  /** The test that window belonged to (`file › name`), when this phone remembers. */
  readonly test?: string
}

/** The sensor's power over a window, thinned, and the app's activity on the same buckets. */
export interface PowerTimeline {
  /**
   * Bucket edges, seconds from the window's start (negative before it, past `durationS` after
   * it: a little context either side when the sensor read there); n buckets have n + 1 edges, and
   * the window's own start and end are among them.
   */
  readonly edgesS: readonly number[]
  /** Each rail (or the one whole-device source), on those buckets. */
  readonly series: readonly TimelineSeries[]
  /** The window's top methods by self energy, when it had stack samples or a method trace. */
  readonly lanes?: readonly ActivityLane[]
  /** Asynchronous energy carried in from earlier windows on this phone. */
  readonly carriedIn?: readonly CarriedInEnergy[]
}

/**
 * A node of the window's call tree: root → thread → outermost frame → … → callee. Self energy is
 * what the node's stack position was charged as the running frame (local energy); inclusive adds
 * its children. Nodes too small to show are folded into one `other` child of their parent
 * (`folded: true`), so every level still sums up.
 */
export interface CallTreeNode {
  /** A method, a thread (`thread main`), `asynchronous` for tails, or `other` when folded. */
  readonly name: string
  readonly kind: 'root' | 'thread' | 'method' | 'async' | 'other'
  readonly selfEnergyJ: number
  readonly inclusiveEnergyJ: number
  readonly children?: readonly CallTreeNode[]
}
