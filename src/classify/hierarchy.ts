/**
 * HTML-ready hierarchy for a sunburst (d3.hierarchy / partition): project → package → class →
 * method, each node with its colour. Leaves carry `size: 1` (one arc per method, as GreenDroid's
 * sunburst) and the method's counts.
 */
import type { MethodColor } from '../model/index.js'
import type { ClassificationResult } from './classify.js'

export interface HierarchyLeaf {
  readonly kind: 'method'
  /** Simple method name (`bind`). */
  readonly name: string
  /** Fully qualified name (`com.a.Feed.bind`). */
  readonly fullName: string
  readonly color: MethodColor
  readonly size: 1
  readonly n11: number
  readonly n10: number
  readonly p: number
}

export interface HierarchyNode {
  readonly kind: 'project' | 'package' | 'class'
  /** Package `com.a` (`(default)` for the default package), simple class name, or project name. */
  readonly name: string
  readonly color: MethodColor
  readonly children: readonly (HierarchyNode | HierarchyLeaf)[]
}

/** Builds the sunburst tree from a classification (pure; JSON-safe). */
export function toHierarchy(result: ClassificationResult, projectName = 'project'): HierarchyNode {
  const classColor = new Map(result.classes.map((c) => [c.name, c.color]))
  const packages = result.packages.map((pkg): HierarchyNode => {
    const classes = result.classes
      .filter((c) => packageOf(c.name) === pkg.name)
      .map((c): HierarchyNode => ({
        kind: 'class',
        name: c.name.slice(c.name.lastIndexOf('.') + 1),
        color: classColor.get(c.name) ?? 'uncolored',
        children: result.methods
          .filter((m) => m.class === c.name)
          .map((m): HierarchyLeaf => ({
            kind: 'method',
            name: m.name.slice(c.name.length + 1),
            fullName: m.name,
            color: m.color,
            size: 1,
            n11: m.n11,
            n10: m.n10,
            p: m.p,
          })),
      }))
    return {
      kind: 'package',
      name: pkg.name === '' ? '(default)' : pkg.name,
      color: pkg.color,
      children: classes,
    }
  })
  return { kind: 'project', name: projectName, color: result.project, children: packages }
}

function packageOf(className: string): string {
  const dot = className.lastIndexOf('.')
  return dot < 0 ? '' : className.slice(0, dot)
}
