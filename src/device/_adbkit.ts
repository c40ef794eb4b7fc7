/**
 * The few adbkit calls we use, typed by us. adbkit is CommonJS with Bluebird promises and default
 * exports; everything here returns thenables that callers `await`. Not part of the public surface.
 */
import type { EventEmitter } from 'node:events'
import { createRequire } from 'node:module'
import type { Readable } from 'node:stream'

/** One row of `host:devices-l`, positional as adbkit splits it (we re-parse the `key:value` tokens). */
export interface RawDeviceWithPath {
  readonly id: string
  readonly type: string
  readonly path?: string
  readonly product?: string
  readonly model?: string
  readonly device?: string
  readonly transportId?: string
}

export interface RawStats {
  readonly mode: number
  readonly size: number
  readonly mtime: Date
}

/** A `sync:` RECV in progress: a readable stream of the file's bytes. */
export interface RawPullTransfer extends Readable {
  readonly stats: { readonly bytesTransferred: number }
  cancel(): boolean
}

/** A `sync:` SEND in progress: emits `progress`, `end`, `error`. */
export interface RawPushTransfer extends EventEmitter {
  readonly stats: { readonly bytesTransferred: number }
  cancel(): boolean
}

export interface RawDeviceClient {
  shell(command: string): PromiseLike<Readable>
  stat(path: string): PromiseLike<RawStats>
  pull(path: string): PromiseLike<RawPullTransfer>
  push(contents: Readable | string, path: string, mode?: number): PromiseLike<RawPushTransfer>
}

export interface RawAdbClient {
  version(): PromiseLike<number>
  listDevicesWithPaths(): PromiseLike<RawDeviceWithPath[]>
  getDevice(serial: string): RawDeviceClient
}

interface AdbkitModule {
  readonly Adb: {
    createClient(options: {
      host: string
      port: number
      bin: string
      timeout?: number
    }): RawAdbClient
  }
}

const require = createRequire(import.meta.url)

/**
 * Loaded when this module is: adbkit turns Bluebird's cancellation on as it loads, which Bluebird
 * refuses once any promise of that Bluebird exists, and Appium's support library shares that
 * Bluebird. Whatever starts Appium in-process imports this module first.
 */
const adbkit = require('@devicefarmer/adbkit') as AdbkitModule

/** Loads adbkit the one way that gives the same object under Node ESM and inside Vitest. */
export function createRawClient(options: {
  host: string
  port: number
  bin: string
}): RawAdbClient {
  return adbkit.Adb.createClient(options)
}
