/** toybox file commands: `cat`, `ls`, `rm`, `mkdir`, `touch` (messages as toybox prints them). */
import type { ShellCommand, ShellInvocation, VirtualFileNode } from '../../contract.js'
import { streamingCommand, type StreamingInvocation } from '../streams.js'
import { deniedErrno, dirname, errnoOf, shellMayWrite, SHELL_UMASK } from '../vfs.js'
import {
  complain,
  complainErrno,
  longIsoMinutes,
  nodeSize,
  ownerOf,
  parseFlags,
  resolve,
} from './_util.js'

/** Copies stdin to stdout as it arrives, waiting for room after each chunk. */
async function copyStdin(inv: StreamingInvocation): Promise<void> {
  for (;;) {
    const chunk = await inv.read()
    if (chunk === undefined) return
    inv.io.write(chunk)
    await inv.drained()
  }
}

export const cat = streamingCommand(async (inv) => {
  const files = inv.argv.slice(1).filter((a) => a !== '-u')
  if (files.length === 0) {
    await copyStdin(inv)
    return 0
  }
  let status = 0
  for (const file of files) {
    if (file === '-') {
      await copyStdin(inv)
      continue
    }
    const path = resolve(inv, file)
    const node = inv.device.fs.stat(path)
    if (inv.device.fs.shellDenied(path)) {
      complainErrno(inv, file, 'EACCES')
      status = 1
    } else if (node === undefined) {
      complainErrno(inv, file, 'ENOENT')
      status = 1
    } else if (node.kind === 'dir') {
      complainErrno(inv, file, 'EISDIR')
      status = 1
    } else if (node.kind === 'dynamic' && (node.mode & 0o444) === 0) {
      complainErrno(inv, file, 'EACCES')
      status = 1
    } else {
      inv.io.write(inv.device.fs.readFile(path))
      await inv.drained()
    }
  }
  return status
})

function modeString(node: VirtualFileNode): string {
  const mode = node.mode
  const type = node.kind === 'dir' ? 'd' : '-'
  let s = type
  const bits = 'rwxrwxrwx'
  for (let i = 0; i < 9; i++) s += (mode & (1 << (8 - i))) !== 0 ? bits[i] : '-'
  return s
}

interface Entry {
  readonly name: string
  readonly path: string
  readonly node: VirtualFileNode
}

function listLong(inv: ShellInvocation, entries: readonly Entry[], bootS: number): string {
  const rows = entries.map((e) => {
    const [user, group] = ownerOf(e.path)
    let links = 1
    if (e.node.kind === 'dir') {
      links = 2
      try {
        for (const c of inv.device.fs.list(e.path)) {
          if (inv.device.fs.stat(`${e.path === '/' ? '' : e.path}/${c}`)?.kind === 'dir') links++
        }
      } catch {
        // unreadable directory: keep 2
      }
    }
    const mtimeS = e.node.kind === 'dynamic' ? bootS : e.node.mtimeS
    return {
      mode: modeString(e.node),
      links: String(links),
      user,
      group,
      size: String(nodeSize(e.path, e.node)),
      time: longIsoMinutes(mtimeS),
      name: e.name,
    }
  })
  const w = (key: 'links' | 'user' | 'group' | 'size'): number =>
    Math.max(0, ...rows.map((r) => r[key].length))
  const [wl, wu, wg, ws] = [w('links'), w('user'), w('group'), w('size')]
  return rows
    .map(
      (r) =>
        `${r.mode} ${r.links.padStart(wl)} ${r.user.padEnd(wu)} ${r.group.padEnd(wg)} ${r.size.padStart(ws)} ${r.time} ${r.name}\n`,
    )
    .join('')
}

/** Blocks for `total`: 4 KiB file-system blocks counted in 1 KiB units, like ext4/f2fs. */
function blocksK(path: string, node: VirtualFileNode): number {
  if (node.kind === 'dynamic') return 0
  return Math.ceil(nodeSize(path, node) / 4096) * 4
}

export const ls: ShellCommand = (inv) => {
  const { flags, operands, bad } = parseFlags(inv.argv.slice(1), 'laAd1nRsShtrZ')
  if (bad !== undefined) {
    complain(inv, `Unknown option '${bad}'`)
    return 1
  }
  const long = flags.has('l') || flags.has('n')
  const all = flags.has('a')
  const fs = inv.device.fs
  const clock = inv.device.clock
  const bootS = Math.floor((clock.nowNs('realtime') - clock.nowNs('boottime')) / 1e9)
  const targets = operands.length === 0 ? ['.'] : operands
  let status = 0
  const files: Entry[] = []
  const dirs: { arg: string; path: string }[] = []
  for (const arg of targets) {
    const path = resolve(inv, arg)
    const node = fs.stat(path)
    if (fs.shellDenied(path)) {
      complainErrno(inv, arg, 'EACCES')
      status = 1
    } else if (node === undefined) {
      complainErrno(inv, arg, 'ENOENT')
      status = 1
    } else if (node.kind === 'dir' && !flags.has('d')) dirs.push({ arg, path })
    else files.push({ name: arg, path, node })
  }
  files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  dirs.sort((a, b) => (a.arg < b.arg ? -1 : a.arg > b.arg ? 1 : 0))
  let out = ''
  if (files.length > 0) {
    out += long ? listLong(inv, files, bootS) : files.map((f) => `${f.name}\n`).join('')
  }
  const headers = files.length + dirs.length > 1 || status !== 0
  for (const [i, dir] of dirs.entries()) {
    if (headers) out += `${out === '' && i === 0 ? '' : '\n'}${dir.arg}:\n`
    const names = fs.list(dir.path).filter((n) => all || flags.has('A') || !n.startsWith('.'))
    const entries: Entry[] = names.map((name) => {
      const path = `${dir.path === '/' ? '' : dir.path}/${name}`
      const node = fs.stat(path) ?? { kind: 'file', data: new Uint8Array(0), mode: 0, mtimeS: 0 }
      return { name, path, node }
    })
    if (all) {
      const self = fs.stat(dir.path)
      const parent = fs.stat(dirname(dir.path))
      if (self !== undefined) entries.push({ name: '.', path: dir.path, node: self })
      if (parent !== undefined) entries.push({ name: '..', path: dirname(dir.path), node: parent })
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    if (long) {
      out += `total ${entries.reduce((sum, e) => sum + blocksK(e.path, e.node), 0)}\n`
      out += listLong(inv, entries, bootS)
    } else out += entries.map((e) => `${e.name}\n`).join('')
  }
  inv.io.write(out)
  return status
}

function writableErrno(inv: ShellInvocation, path: string) {
  const dir = dirname(path)
  const parent = inv.device.fs.stat(dir)
  if (parent === undefined) return 'ENOENT' as const
  if (parent.kind !== 'dir') return 'ENOTDIR' as const
  return shellMayWrite(inv.device.fs, dir) ? undefined : deniedErrno(dir)
}

export const rm: ShellCommand = (inv) => {
  const { flags, operands, bad } = parseFlags(inv.argv.slice(1), 'fiRrv')
  if (bad !== undefined) {
    complain(inv, `Unknown option '${bad}'`)
    return 1
  }
  const force = flags.has('f')
  const recursive = flags.has('r') || flags.has('R')
  if (operands.length === 0) {
    if (force) return 0
    complain(inv, 'Needs 1 argument')
    return 1
  }
  const fs = inv.device.fs
  let status = 0
  const removeTree = (path: string): void => {
    const node = fs.stat(path)
    if (node?.kind === 'dir') {
      for (const c of fs.list(path)) removeTree(`${path === '/' ? '' : path}/${c}`)
    }
    fs.remove(path)
  }
  for (const arg of operands) {
    const path = resolve(inv, arg)
    const node = fs.stat(path)
    if (node === undefined) {
      if (!force) {
        complainErrno(inv, arg, 'ENOENT')
        status = 1
      }
      continue
    }
    if (node.kind === 'dir' && !recursive) {
      complainErrno(inv, arg, 'EISDIR')
      status = 1
      continue
    }
    const denied = writableErrno(inv, path)
    if (denied !== undefined) {
      complainErrno(inv, arg, denied)
      status = 1
      continue
    }
    try {
      removeTree(path)
    } catch (error) {
      complainErrno(inv, arg, errnoOf(error) ?? 'EACCES')
      status = 1
    }
  }
  return status
}

export const mkdir: ShellCommand = (inv) => {
  const args = inv.argv.slice(1)
  let parents = false
  let mode = 0o777 & ~SHELL_UMASK
  const dirs: string[] = []
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? ''
    if (a === '-p') parents = true
    else if (a === '-m') mode = Number.parseInt(args[++i] ?? '755', 8)
    else if (a.startsWith('-m')) mode = Number.parseInt(a.slice(2), 8)
    else dirs.push(a)
  }
  if (dirs.length === 0) {
    complain(inv, 'Needs 1 argument')
    return 1
  }
  const fs = inv.device.fs
  let status = 0
  for (const arg of dirs) {
    const path = resolve(inv, arg)
    const node = fs.stat(path)
    if (node !== undefined) {
      if (node.kind === 'dir' && parents) continue
      complain(inv, `'${arg}': File exists`)
      status = 1
      continue
    }
    // find the deepest existing ancestor to check permissions
    let ancestor = dirname(path)
    while (fs.stat(ancestor) === undefined && ancestor !== '/') {
      if (!parents) break
      ancestor = dirname(ancestor)
    }
    const anc = fs.stat(ancestor)
    if (anc === undefined) {
      complain(inv, `'${arg}': No such file or directory`)
      status = 1
      continue
    }
    if (anc.kind !== 'dir') {
      complain(inv, `'${arg}': Not a directory`)
      status = 1
      continue
    }
    if (!shellMayWrite(fs, ancestor)) {
      complain(
        inv,
        `'${arg}': ${deniedErrno(ancestor) === 'EROFS' ? 'Read-only file system' : 'Permission denied'}`,
      )
      status = 1
      continue
    }
    fs.mkdirp(path)
    const created = fs.stat(path)
    if (created?.kind === 'dir') created.mode = mode
  }
  return status
}

export const touch: ShellCommand = (inv) => {
  const operands = inv.argv.slice(1).filter((a) => !a.startsWith('-'))
  if (operands.length === 0) {
    complain(inv, 'Needs 1 argument')
    return 1
  }
  const fs = inv.device.fs
  const nowS = Math.floor(inv.device.clock.nowNs('realtime') / 1e9)
  let status = 0
  for (const arg of operands) {
    const path = resolve(inv, arg)
    const node = fs.stat(path)
    if (node !== undefined) {
      if (node.kind !== 'dynamic') node.mtimeS = nowS
      continue
    }
    const denied = writableErrno(inv, path)
    if (denied !== undefined) {
      complainErrno(inv, `'${arg}'`, denied)
      status = 1
      continue
    }
    fs.writeFile(path, new Uint8Array(0), 0o666 & ~SHELL_UMASK)
  }
  return status
}
