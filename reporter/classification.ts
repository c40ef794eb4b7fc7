/**
 * The spectrum classifier over the run's tests (issue 8): every method, class and package gets a
 * red/yellow/green colour, and the sunburst hierarchy is built for the HTML-ready JSON. Works on
 * what `task.meta` carried: methods trimmed from the meta count as not executed (see
 * docs/classifier.md), so raise the fixture's `topMethods` when colours matter.
 */
import { methodOrigin, type MethodColor } from '../src/model/index.js'
import {
  classify,
  spectrumFromResults,
  toHierarchy,
  type ErrorVectorMode,
  type HierarchyNode,
  type Preset,
} from '../src/classify/index.js'
import type { ReportEntry } from './report.js'

export interface ClassifyReportOptions {
  /** @default 'couto2014' */
  readonly preset?: Preset
  /** @default 'couto2014' */
  readonly errorVector?: ErrorVectorMode
}

export interface ReportClassifiedMethod {
  /** Fully qualified name. */
  readonly name: string
  readonly class: string
  readonly color: MethodColor
  /** Inclusive energy over all tests (repetitions averaged), joules; null when unknown. */
  readonly energyJ: number | null
  /** Excessive / other tests that executed it. */
  readonly n11: number
  readonly n10: number
}

export interface ReportClassifiedGroup {
  readonly name: string
  readonly color: MethodColor
  readonly members: number
  /** Sum of its methods' energy, joules. */
  readonly energyJ: number
}

export interface ReportClassification {
  readonly preset: Preset
  readonly errorVector: string
  /** Ids (`file › name`) of the energy-greedy tests. */
  readonly excessive: readonly string[]
  /** couto2014 error vector threshold, watts; null otherwise. */
  readonly thresholdW: number | null
  /** Highest energy first. */
  readonly methods: readonly ReportClassifiedMethod[]
  readonly classes: readonly ReportClassifiedGroup[]
  readonly packages: readonly ReportClassifiedGroup[]
  readonly project: MethodColor
}

export function testId(entry: Pick<ReportEntry, 'file' | 'name'>): string {
  return `${entry.file} › ${entry.name}`
}

/** Classifies the run; `undefined` when no test measured methods. Throws the classifier's EnergyErrors. */
export function classifyEntries(
  entries: readonly ReportEntry[],
  options: ClassifyReportOptions = {},
  projectName = 'project',
):
  { readonly classification: ReportClassification; readonly hierarchy: HierarchyNode } | undefined {
  // The classifier colours Java methods (package.Class.method); native frames such as
  // `__start_thread` or `art_quick_invoke_stub` have no class or package to colour.
  const spectrum = spectrumFromResults(
    entries.flatMap((e) =>
      e.results.map((result) => ({
        id: testId(e),
        result:
          result.status === 'measured'
            ? {
                ...result,
                methods: result.methods.filter((m) => methodOrigin(m.method) !== 'native'),
              }
            : result,
      })),
    ),
  )
  if (spectrum.length === 0 || spectrum.every((t) => t.methods.length === 0)) return undefined
  const result = classify(spectrum, {
    ...(options.preset === undefined ? {} : { preset: options.preset }),
    ...(options.errorVector === undefined ? {} : { mode: options.errorVector }),
  })
  const energyOf = new Map<string, number>()
  for (const t of spectrum) {
    for (const m of t.methods) energyOf.set(m.name, (energyOf.get(m.name) ?? 0) + (m.energyJ ?? 0))
  }
  const methods: ReportClassifiedMethod[] = result.methods
    .map((m) => ({
      name: m.name,
      class: m.class,
      color: m.color,
      energyJ: m.energyJ ?? energyOf.get(m.name) ?? null,
      n11: m.n11,
      n10: m.n10,
    }))
    .sort((a, b) => (b.energyJ ?? 0) - (a.energyJ ?? 0) || (a.name < b.name ? -1 : 1))
  const classEnergy = new Map<string, number>()
  for (const m of methods)
    classEnergy.set(m.class, (classEnergy.get(m.class) ?? 0) + (m.energyJ ?? 0))
  const packageEnergy = new Map<string, number>()
  for (const [cls, energyJ] of classEnergy) {
    const pkg = cls.includes('.') ? cls.slice(0, cls.lastIndexOf('.')) : ''
    packageEnergy.set(pkg, (packageEnergy.get(pkg) ?? 0) + energyJ)
  }
  const byEnergy = (a: ReportClassifiedGroup, b: ReportClassifiedGroup): number =>
    b.energyJ - a.energyJ || (a.name < b.name ? -1 : 1)
  return {
    classification: {
      preset: result.preset,
      errorVector: result.errorVector,
      excessive: result.excessive,
      thresholdW: result.threshold,
      methods,
      classes: result.classes
        .map((c) => ({ ...c, energyJ: classEnergy.get(c.name) ?? 0 }))
        .sort(byEnergy),
      packages: result.packages
        .map((p) => ({ ...p, energyJ: packageEnergy.get(p.name) ?? 0 }))
        .sort(byEnergy),
      project: result.project,
    },
    hierarchy: toHierarchy(result, projectName),
  }
}
