/** Helpers shared by the base commands: toybox-style error lines, paths, sizes, owners. */
import type { ShellInvocation, VirtualFileNode } from '../../contract.js'
import { ERRNO_TEXT, type Errno } from '../errors.js'
import { normalizePath } from '../vfs.js'

/** `cmd: message` on stderr, the way toybox's error_msg prints it. */
export function complain(inv: ShellInvocation, message: string): void {
  inv.io.writeErr(`${inv.argv[0] === undefined ? '' : baseName(inv.argv[0])}: ${message}\n`)
}

/** `cmd: path: strerror` on stderr (toybox perror_msg_raw). */
export function complainErrno(inv: ShellInvocation, path: string, errno: Errno): void {
  complain(inv, `${path}: ${ERRNO_TEXT[errno]}`)
}

export function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1)
}

/** Resolves a path argument against the shell's working directory (`/` unless `cd` moved it). */
export function resolve(inv: ShellInvocation, path: string): string {
  return normalizePath(path, inv.cwd ?? '/')
}

/** Size as `stat` reports it. */
export function nodeSize(path: string, node: VirtualFileNode): number {
  if (node.kind === 'file') return node.data.length
  if (node.kind === 'dir') return 4096
  return path.startsWith('/sys/') ? 4096 : 0
}

/** Owner and group as `ls -l` shows them (the virtual fs does not store owners). */
export function ownerOf(path: string): readonly [string, string] {
  if (path === '/data/local/tmp' || path.startsWith('/data/local/tmp/')) return ['shell', 'shell']
  if (path.startsWith('/sdcard') || path.startsWith('/storage/')) return ['root', 'everybody']
  if (path.startsWith('/system/bin/')) return ['root', 'shell']
  return ['root', 'root']
}

/** Splits leading single-letter flags (`-rf`, `-l`); stops at `--` or the first operand. */
export function parseFlags(
  args: readonly string[],
  allowed: string,
): { flags: Set<string>; operands: string[]; bad: string | undefined } {
  const flags = new Set<string>()
  let i = 0
  for (; i < args.length; i++) {
    const a = args[i] ?? ''
    if (a === '--') {
      i++
      break
    }
    if (!a.startsWith('-') || a === '-') break
    for (const c of a.slice(1)) {
      if (!allowed.includes(c)) return { flags, operands: [], bad: c }
      flags.add(c)
    }
  }
  return { flags, operands: args.slice(i), bad: undefined }
}

/** `YYYY-MM-DD HH:MM` in UTC (the virtual device's time zone). */
export function longIsoMinutes(epochS: number): string {
  const d = new Date(epochS * 1000)
  const p = (n: number): string => String(n).padStart(2, '0')
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`
}
