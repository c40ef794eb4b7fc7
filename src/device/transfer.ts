/**
 * File transfers over adb's `sync:` service: pull to a Buffer, to a file (streamed, constant
 * memory, with progress), and push. A missing file is detected with STAT first (mode 0 means
 * "no such file"), so the error names the path instead of a bare sync FAIL.
 */
import { createWriteStream } from 'node:fs'
import { rename, rm } from 'node:fs/promises'
import { Readable, Transform, type Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { EnergyError } from '../model/index.js'
import type { RawPullTransfer, RawStats } from './_adbkit.js'
import { disconnected, mapAdbError, type AdbDevice } from './client.js'
import { DeviceErrors } from './errors.js'

/** Progress of a transfer. */
export interface TransferProgress {
  /** Bytes moved so far. */
  readonly bytes: number
  /** Size the device reported with STAT, when known (0 for /proc and sysfs nodes). */
  readonly totalBytes?: number
}

/** Options of the pull functions. */
export interface PullOptions {
  /** Called as bytes arrive (at most once per received chunk). */
  readonly onProgress?: (progress: TransferProgress) => void
  readonly signal?: AbortSignal
}

/** Device file metadata from `sync:` STAT. */
export interface DeviceFileStat {
  readonly path: string
  /** Unix mode bits (type and permissions). */
  readonly mode: number
  readonly sizeBytes: number
  readonly mtimeMs: number
}

/** STATs a device path; `undefined` when it does not exist. */
export async function statFile(
  device: AdbDevice,
  path: string,
): Promise<DeviceFileStat | undefined> {
  let stats: RawStats
  try {
    stats = await device.raw.stat(path)
  } catch (error) {
    // adbkit rejects a missing path (mode 0) with "ENOENT, no such file or directory".
    if (isNoSuchFile(error)) return undefined
    throw context(error, device, path)
  }
  if (stats.mode === 0) return undefined
  return { path, mode: stats.mode, sizeBytes: stats.size, mtimeMs: stats.mtime.getTime() }
}

/** Pulls a device file into memory. For big traces use {@link pullToFile}. */
export async function pull(
  device: AdbDevice,
  path: string,
  options: PullOptions = {},
): Promise<Buffer> {
  const chunks: Buffer[] = []
  await pullInto(
    device,
    path,
    (transfer) =>
      new Promise<void>((resolve, reject) => {
        transfer.on('data', (chunk: Buffer) => chunks.push(chunk))
        transfer.once('end', () => resolve())
        transfer.once('error', reject)
      }),
    options,
  )
  return Buffer.concat(chunks)
}

/**
 * Streams a device file to a local file in constant memory (written to `<local>.partial`, renamed
 * when complete, removed on failure). Resolves with the number of bytes written.
 */
export async function pullToFile(
  device: AdbDevice,
  path: string,
  localPath: string,
  options: PullOptions = {},
): Promise<number> {
  const partial = `${localPath}.partial`
  let bytes = 0
  try {
    await pullInto(
      device,
      path,
      async (transfer) => {
        const sink: Writable = createWriteStream(partial)
        transfer.on('data', (chunk: Buffer) => {
          bytes += chunk.length
        })
        await pipeline(transfer, sink)
      },
      options,
    )
    await rename(partial, localPath)
    return bytes
  } catch (error) {
    await rm(partial, { force: true })
    throw error
  }
}

/** Options of {@link push}. */
export interface PushOptions {
  /** Unix permission bits of the new file. @default 0o644 */
  readonly mode?: number
  readonly onProgress?: (progress: TransferProgress) => void
}

/** Writes bytes (or a readable stream) to a device path. */
export async function push(
  device: AdbDevice,
  contents: Uint8Array | string | Readable,
  path: string,
  options: PushOptions = {},
): Promise<void> {
  let source: Readable
  if (contents instanceof Readable) {
    const rechunked = rechunk()
    // pipe() does not forward errors: a failing source must fail the push, not stall it.
    contents.once('error', (error: unknown) => rechunked.destroy(toError(error)))
    source = contents.pipe(rechunked)
  } else {
    source = Readable.from(chunks(typeof contents === 'string' ? Buffer.from(contents) : contents))
  }
  // Listen before handing the stream over: it may fail before the transfer even starts.
  let sourceFailed: ((error: unknown) => void) | undefined
  let sourceError: unknown
  source.once('error', (error: unknown) => {
    sourceError = error
    sourceFailed?.(error)
  })
  const sourceFailure = (error: unknown): EnergyError =>
    new EnergyError({
      code: DeviceErrors.PUSH_SOURCE,
      message: `reading the data to push to ${path} failed: ${toError(error).message}`,
      hint: 'Check the local file or stream given to push().',
      details: { serial: device.serial, path },
      cause: error,
    })
  let transfer
  try {
    transfer = await device.raw.push(source, path, options.mode ?? 0o644)
  } catch (error) {
    throw context(error, device, path)
  }
  const started = transfer
  await new Promise<void>((resolve, reject) => {
    sourceFailed = (error) => {
      started.cancel()
      reject(sourceFailure(error))
    }
    if (sourceError !== undefined) sourceFailed(sourceError)
    started.on('progress', (stats: { bytesTransferred: number }) =>
      options.onProgress?.({ bytes: stats.bytesTransferred }),
    )
    started.once('end', () => resolve())
    started.once('error', (error: unknown) =>
      reject(sourceError !== undefined ? sourceFailure(sourceError) : context(error, device, path)),
    )
  })
}

/**
 * adbd rejects sync DATA frames over 64 KiB, and adbkit sends each source chunk as one frame
 * (found against the virtual device: a 70 000-byte Buffer failed), so we cut sources to size.
 */
const SYNC_DATA_MAX = 64 * 1024

function* chunks(bytes: Uint8Array): Generator<Buffer> {
  for (let at = 0; at < bytes.length; at += SYNC_DATA_MAX) {
    yield Buffer.from(bytes.subarray(at, at + SYNC_DATA_MAX))
  }
}

function rechunk(): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      for (const piece of chunks(chunk)) this.push(piece)
      callback()
    },
  })
}

async function pullInto(
  device: AdbDevice,
  path: string,
  consume: (transfer: RawPullTransfer) => Promise<void>,
  options: PullOptions,
): Promise<void> {
  const stat = await statFile(device, path)
  if (stat === undefined) throw missing(device, path)
  let transfer: RawPullTransfer
  try {
    transfer = await device.raw.pull(path)
  } catch (error) {
    throw context(error, device, path)
  }
  // adbkit emits transfer errors (sync FAIL, premature EOF) on the stream: always listen.
  let failure: unknown
  transfer.on('error', (error: unknown) => {
    failure ??= error
  })
  const totalBytes = stat.sizeBytes > 0 ? stat.sizeBytes : undefined
  let bytes = 0
  transfer.on('data', (chunk: Buffer) => {
    bytes += chunk.length
    options.onProgress?.(totalBytes === undefined ? { bytes } : { bytes, totalBytes })
  })
  const onAbort = (): void => {
    transfer.cancel()
    transfer.destroy(
      new EnergyError({
        code: DeviceErrors.ABORTED,
        message: `pulling ${path} was aborted`,
        hint: 'The caller cancelled it; nothing to do.',
        details: { serial: device.serial, path },
      }),
    )
  }
  if (options.signal?.aborted === true) onAbort()
  else options.signal?.addEventListener('abort', onAbort, { once: true })
  try {
    await consume(transfer)
  } catch (error) {
    throw context(failure ?? error, device, path)
  } finally {
    options.signal?.removeEventListener('abort', onAbort)
  }
  if (failure !== undefined) throw context(failure, device, path)
  // A regular file that came back short means the link dropped without a sync FAIL.
  const isRegular = (stat.mode & 0o170000) === 0o100000
  if (isRegular && stat.sizeBytes > 0 && bytes < stat.sizeBytes) {
    throw disconnected(
      device.serial,
      `pulling ${path} stopped at ${bytes} of ${stat.sizeBytes} bytes`,
    )
  }
}

function toError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error))
}

function isNoSuchFile(error: unknown): boolean {
  const message = error instanceof Error ? error.message : String(error)
  return /no such file|ENOENT/i.test(message)
}

function missing(device: AdbDevice, path: string, cause?: unknown): EnergyError {
  return new EnergyError({
    code: DeviceErrors.DEVICE_FILE_MISSING,
    message: `${path} does not exist on the device`,
    hint:
      'Check that the collector wrote it (and where: apps can only write their own dirs and ' +
      '/data/local/tmp), e.g. `adb shell ls -l <dir>`.',
    details: { serial: device.serial, path },
    cause,
  })
}

function context(error: unknown, device: AdbDevice, path: string): EnergyError {
  if (error instanceof EnergyError) return error
  if (isNoSuchFile(error)) return missing(device, path, error)
  const mapped = mapAdbError(error, {
    host: device.client.host,
    port: device.client.port,
    serial: device.serial,
    path,
  })
  if (mapped.code === DeviceErrors.ADB_PROTOCOL && /premature|closed|EOF/i.test(mapped.message)) {
    return disconnected(device.serial, `the transfer of ${path} broke off`, error)
  }
  return mapped
}
