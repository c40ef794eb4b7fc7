/**
 * An in-memory file system for the virtual device (implements `VirtualFs` from contract.ts).
 * Failures are `EnergyError`s whose `details.errno` (`ENOENT`, `EISDIR`, ...) the shell commands
 * turn into toybox-style messages.
 */
import { EnergyError } from '../../model/errors.js'
import type { VirtualFileNode, VirtualFs } from '../contract.js'
import { ERRNO_TEXT, VirtualDeviceShellErrors, type Errno } from './errors.js'

/** Mode bits as `stat` reports them. */
export const S_IFDIR = 0o040000
export const S_IFREG = 0o100000

/**
 * umask of `adb shell` (inherited from init's `umask 077`): new files 0600, new dirs 0700.
 * Files pushed with `adb push` keep the mode the client sends.
 */
export const SHELL_UMASK = 0o077

/** Paths the `shell` user may write below (like a real, non-rooted phone). */
const SHELL_WRITABLE = ['/data/local/tmp', '/sdcard', '/storage/emulated/0']

export function fsError(errno: Errno, path: string, cause?: unknown): EnergyError {
  const code =
    errno === 'ENOENT'
      ? VirtualDeviceShellErrors.NO_SUCH_FILE
      : errno === 'EISDIR' || errno === 'ENOTDIR'
        ? VirtualDeviceShellErrors.WRONG_KIND
        : errno === 'ENOTEMPTY'
          ? VirtualDeviceShellErrors.NOT_EMPTY
          : errno === 'EINVAL'
            ? VirtualDeviceShellErrors.BAD_PATH
            : VirtualDeviceShellErrors.NOT_WRITABLE
  return new EnergyError({
    code,
    message: `${path}: ${ERRNO_TEXT[errno]}`,
    hint: 'Check the path on the virtual device (adb shell ls -l <dir>).',
    details: { format: 'virtual fs', errno, path },
    cause,
  })
}

/** The errno of an error thrown by the virtual fs, or `undefined` for anything else. */
export function errnoOf(error: unknown): Errno | undefined {
  if (error instanceof EnergyError) {
    const errno = error.details['errno']
    if (typeof errno === 'string' && errno in ERRNO_TEXT) return errno as Errno
  }
  return undefined
}

/** Normalizes an absolute path: collapses `//`, `.` and `..`; no trailing slash except `/`. */
export function normalizePath(path: string, cwd = '/'): string {
  const full = path.startsWith('/') ? path : `${cwd}/${path}`
  const out: string[] = []
  for (const part of full.split('/')) {
    if (part === '' || part === '.') continue
    if (part === '..') out.pop()
    else out.push(part)
  }
  return `/${out.join('/')}`
}

export function dirname(path: string): string {
  const i = path.lastIndexOf('/')
  return i <= 0 ? '/' : path.slice(0, i)
}

export function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

/** True when the `shell` user may create or change files in `dir` (a normalized path). */
export function shellMayWrite(fs: VirtualFs, dir: string): boolean {
  if (SHELL_WRITABLE.some((p) => dir === p || dir.startsWith(`${p}/`))) return true
  const node = fs.stat(dir)
  return node?.kind === 'dir' && (node.mode & 0o002) !== 0
}

/** errno for a denied write below `dir`: the system partitions are read-only mounts. */
export function deniedErrno(dir: string): Errno {
  return dir === '/' || dir === '/system' || dir.startsWith('/system/') ? 'EROFS' : 'EACCES'
}

export interface VirtualFsOptions {
  /** Wall-clock seconds for new mtimes. @default host time */
  readonly nowS?: () => number
}

/** An extended `VirtualFs` with the size a node reports to `stat`/`ls`. */
export interface MemoryFs extends VirtualFs {
  /** Size in bytes as `stat` reports it (dynamic nodes: 4096 under /sys, 0 elsewhere). */
  sizeOf(path: string): number
}

export function createVirtualFs(options: VirtualFsOptions = {}): MemoryFs {
  const nowS = options.nowS ?? ((): number => Math.floor(Date.now() / 1000))
  const nodes = new Map<string, VirtualFileNode>()
  const denied = new Set<string>()
  const children = new Map<string, Set<string>>()
  nodes.set('/', { kind: 'dir', mode: 0o755, mtimeS: nowS() })
  children.set('/', new Set())

  const norm = (path: string): string => {
    if (!path.startsWith('/')) throw fsError('EINVAL', path)
    return normalizePath(path)
  }
  const parentDir = (path: string): Set<string> => {
    const dir = dirname(path)
    const node = nodes.get(dir)
    if (node === undefined) throw fsError('ENOENT', path)
    if (node.kind !== 'dir') throw fsError('ENOTDIR', path)
    const set = children.get(dir)
    if (set === undefined) throw fsError('ENOENT', path)
    return set
  }
  const touchDir = (dir: string): void => {
    const node = nodes.get(dir)
    if (node?.kind === 'dir') node.mtimeS = nowS()
  }
  const add = (path: string, node: VirtualFileNode): void => {
    parentDir(path).add(basename(path))
    nodes.set(path, node)
    if (node.kind === 'dir' && !children.has(path)) children.set(path, new Set())
    touchDir(dirname(path))
  }

  const fs: MemoryFs = {
    stat(path) {
      if (!path.startsWith('/')) return undefined
      return nodes.get(normalizePath(path))
    },
    readFile(path) {
      const p = norm(path)
      const node = nodes.get(p)
      if (node === undefined) throw fsError('ENOENT', p)
      if (node.kind === 'dir') throw fsError('EISDIR', p)
      return node.kind === 'file' ? node.data : node.read()
    },
    writeFile(path, data, mode) {
      const p = norm(path)
      const node = nodes.get(p)
      if (node?.kind === 'dir') throw fsError('EISDIR', p)
      if (node?.kind === 'dynamic') {
        if (node.write === undefined) throw fsError('EACCES', p)
        node.write(data)
        return
      }
      if (node?.kind === 'file') {
        node.data = data
        node.mtimeS = nowS()
        if (mode !== undefined) node.mode = mode & 0o7777
        return
      }
      add(p, { kind: 'file', data, mode: (mode ?? 0o644) & 0o7777, mtimeS: nowS() })
    },
    appendFile(path, data) {
      const p = norm(path)
      const node = nodes.get(p)
      if (node?.kind === 'file') {
        const merged = new Uint8Array(node.data.length + data.length)
        merged.set(node.data, 0)
        merged.set(data, node.data.length)
        node.data = merged
        node.mtimeS = nowS()
        return
      }
      fs.writeFile(p, data)
    },
    remove(path) {
      const p = norm(path)
      if (p === '/') throw fsError('EROFS', p)
      const node = nodes.get(p)
      if (node === undefined) throw fsError('ENOENT', p)
      if (node.kind === 'dir' && (children.get(p)?.size ?? 0) > 0) throw fsError('ENOTEMPTY', p)
      nodes.delete(p)
      children.delete(p)
      children.get(dirname(p))?.delete(basename(p))
      touchDir(dirname(p))
    },
    list(path) {
      const p = norm(path)
      const node = nodes.get(p)
      if (node === undefined) throw fsError('ENOENT', p)
      if (node.kind !== 'dir') throw fsError('ENOTDIR', p)
      return [...(children.get(p) ?? [])].sort()
    },
    mkdirp(path) {
      const p = norm(path)
      let current = ''
      for (const part of p.split('/').filter((s) => s !== '')) {
        current = `${current}/${part}`
        const node = nodes.get(current)
        if (node === undefined) add(current, { kind: 'dir', mode: 0o755, mtimeS: nowS() })
        else if (node.kind !== 'dir') throw fsError('ENOTDIR', current)
      }
    },
    defineDynamic(path, node) {
      const p = norm(path)
      fs.mkdirp(dirname(p))
      if (nodes.get(p)?.kind === 'dir') throw fsError('EISDIR', p)
      add(p, { kind: 'dynamic', ...node })
    },
    sizeOf(path) {
      const p = normalizePath(path)
      const node = nodes.get(p)
      if (node === undefined) return 0
      if (node.kind === 'file') return node.data.length
      if (node.kind === 'dir') return 4096
      return p.startsWith('/sys/') ? 4096 : 0
    },
    shellDenied(path) {
      if (denied.size === 0 || !path.startsWith('/')) return false
      const p = normalizePath(path)
      for (const d of denied) if (p === d || p.startsWith(`${d}/`)) return true
      return false
    },
    denyShell(dir) {
      denied.add(norm(dir))
    },
    setMtime(path, mtimeS) {
      const node = nodes.get(normalizePath(path))
      if (node !== undefined && node.kind !== 'dynamic') node.mtimeS = mtimeS
    },
  }
  return fs
}

/** `stat`-style mode word (type bits included), as the sync protocol reports it. */
export function statMode(node: VirtualFileNode): number {
  return (node.kind === 'dir' ? S_IFDIR : S_IFREG) | (node.mode & 0o7777)
}
