/**
 * A window's call tree with energy, for flame graphs: root → thread → outermost frame → … →
 * callee, each stack position charged with the local energy of the samples (or traced calls) that
 * ended there, and the asynchronous energy (radio and GPS tails) under one `asynchronous` node by
 * the method that caused it. `build()` trims it to a bounded number of nodes, folding what is too
 * small into one `other` child per parent so every level still sums up.
 */
import type { CallTrace, StackSample } from '../model/samples.js'
import { CALL_TREE_MAX_NODES, type CallTreeNode } from '../model/timeline.js'
import type { CallEnergy } from './interval.js'

interface Node {
  readonly name: string
  readonly kind: CallTreeNode['kind']
  selfJ: number
  inclusiveJ: number
  children: Map<string, Node> | undefined
}

export interface CallTreeOptions {
  /** Asynchronous energy by the method that caused it, J. */
  readonly asyncJ?: ReadonlyMap<string, number>
  /** Nodes smaller than this share of max(|referenceJ|, |the tree's total|) fold into `other`. @default 0.005 */
  readonly minShare?: number
  /** The window's net energy, J (the share above is of it). @default the tree's total */
  readonly referenceJ?: number
  /** @default CALL_TREE_MAX_NODES (300), `other` nodes included */
  readonly maxNodes?: number
}

export class CallTreeBuilder {
  private readonly root: Node = node('attributed to methods', 'root')
  private added = 0

  /** One stack sample (frames leaf first, as samples hold them) and the energy it was worth. */
  addSample(sample: StackSample, energyJ: number): void {
    if (sample.frames.length === 0) return
    let at = child(this.root, sample.threadName ?? `thread ${sample.threadId}`, 'thread')
    for (let f = sample.frames.length - 1; f >= 0; f--)
      at = child(at, sample.frames[f] as string, 'method')
    at.selfJ += energyJ
    this.added++
  }

  /** A method trace's calls with the local (exclusive) energy each got. */
  addCalls(trace: CallTrace, calls: readonly CallEnergy[]): void {
    const threadName = new Map(trace.threads.map((t) => [t.id, t.name]))
    const sorted = [...calls].sort(
      (a, b) =>
        a.call.threadId - b.call.threadId ||
        a.call.startNs - b.call.startNs ||
        a.call.depth - b.call.depth,
    )
    let thread = Number.NaN
    let threadNode = this.root
    const stack: Array<{ depth: number; node: Node }> = []
    for (const c of sorted) {
      if (c.call.threadId !== thread) {
        thread = c.call.threadId
        threadNode = child(this.root, threadName.get(thread) ?? `thread ${thread}`, 'thread')
        stack.length = 0
      }
      while (stack.length > 0 && (stack[stack.length - 1]?.depth ?? -1) >= c.call.depth) stack.pop()
      const parent = stack[stack.length - 1]?.node ?? threadNode
      const at = child(parent, c.call.method, 'method')
      at.selfJ += c.exclusiveEnergyJ
      stack.push({ depth: c.call.depth, node: at })
      this.added++
    }
  }

  /** The trimmed tree, or undefined when nothing was added. */
  build(options: CallTreeOptions = {}): CallTreeNode | undefined {
    if (this.added === 0) return undefined
    const asyncJ = [...(options.asyncJ ?? [])].filter(([, j]) => j !== 0)
    if (asyncJ.length > 0) {
      const tails = child(this.root, 'asynchronous', 'async')
      for (const [method, j] of asyncJ) child(tails, method, 'method').selfJ += j
    }
    sumUp(this.root)
    const total = this.root.inclusiveJ
    const minJ =
      (options.minShare ?? 0.005) * Math.max(Math.abs(options.referenceJ ?? 0), Math.abs(total))
    return trim(this.root, minJ, Math.max(1, options.maxNodes ?? CALL_TREE_MAX_NODES))
  }
}

function node(name: string, kind: Node['kind']): Node {
  return { name, kind, selfJ: 0, inclusiveJ: 0, children: undefined }
}

function child(parent: Node, name: string, kind: Node['kind']): Node {
  parent.children ??= new Map()
  let c = parent.children.get(name)
  if (c === undefined) {
    c = node(name, kind)
    parent.children.set(name, c)
  }
  return c
}

function sumUp(n: Node): number {
  let sum = n.selfJ
  if (n.children !== undefined) for (const c of n.children.values()) sum += sumUp(c)
  n.inclusiveJ = sum
  return sum
}

/**
 * Keeps the largest nodes (by |inclusive|, a parent before its children) while the count, one
 * `other` node for each kept parent with dropped children included, stays within `maxNodes`.
 */
function trim(root: Node, minJ: number, maxNodes: number): CallTreeNode {
  const all: Array<{ n: Node; parent: Node; depth: number }> = []
  const walk = (n: Node, depth: number): void => {
    if (n.children === undefined) return
    for (const c of n.children.values()) {
      all.push({ n: c, parent: n, depth })
      walk(c, depth + 1)
    }
  }
  walk(root, 0)
  all.sort((a, b) => Math.abs(b.n.inclusiveJ) - Math.abs(a.n.inclusiveJ) || a.depth - b.depth)
  const kept = new Set<Node>([root])
  // Kept nodes' children not (yet) kept: a kept node with any needs an `other` node.
  const unkept = new Map<Node, number>([[root, root.children?.size ?? 0]])
  let others = (root.children?.size ?? 0) > 0 ? 1 : 0
  for (const { n, parent } of all) {
    if (Math.abs(n.inclusiveJ) < minJ) break
    if (!kept.has(parent)) continue
    const siblingsLeft = (unkept.get(parent) ?? 0) - 1
    const own = n.children?.size ?? 0
    const nextOthers = others - (siblingsLeft === 0 ? 1 : 0) + (own > 0 ? 1 : 0)
    if (kept.size + 1 + nextOthers > maxNodes) continue
    kept.add(n)
    unkept.set(parent, siblingsLeft)
    unkept.set(n, own)
    others = nextOthers
  }
  const out = (n: Node): CallTreeNode => {
    const children: CallTreeNode[] = []
    let foldedJ = 0
    let folded = 0
    for (const c of n.children?.values() ?? []) {
      if (kept.has(c)) children.push(out(c))
      else {
        foldedJ += c.inclusiveJ
        folded++
      }
    }
    children.sort((a, b) => b.inclusiveEnergyJ - a.inclusiveEnergyJ)
    if (folded > 0)
      children.push({
        name: 'other',
        kind: 'other',
        selfEnergyJ: foldedJ,
        inclusiveEnergyJ: foldedJ,
      })
    return {
      name: n.name,
      kind: n.kind,
      selfEnergyJ: n.selfJ,
      inclusiveEnergyJ: n.inclusiveJ,
      ...(children.length === 0 ? {} : { children }),
    }
  }
  return out(root)
}
