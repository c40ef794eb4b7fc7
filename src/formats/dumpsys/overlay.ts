/**
 * `cmd overlay` (OverlayManagerService's shell command; `dumpsys overlay` prints the same dump):
 * which runtime resource overlays a package has, in priority order, and which APK a resource's
 * value comes from.
 *
 * References (AOSP frameworks/base, services/core/java/com/android/server/om/):
 * - `list [PACKAGE]` — OverlayManagerShellCommand.runList/printListOverlay: the target's name,
 *   then one `[x] <overlay>` (enabled, mutable or not), `[ ] <overlay>` (disabled) or
 *   `--- <overlay>` (any other state) line per overlay in ascending priority; with no PACKAGE
 *   every target, each group followed by a blank line.
 * - `dump [[FIELD] PACKAGE]` — OverlayManagerSettings.dumpSettingsItem: `<id>:<user> {`, then
 *   `mPackageName...........: …`, `mBaseCodePath..........: …`, `mState…`, `mIsEnabled…`,
 *   `mIsMutable…`, `mPriority…`, …, `}`; items in ascending priority.
 * - `lookup --verbose PACKAGE TYPE:NAME` — runLookup: AssetManager2::GetLastResourceResolution
 *   (`Resolution for 0x… pkg:type/name`, `\tFor config - …`, then one `\tFound initial: <apk>`,
 *   `\tFound better: <apk>`, `\tOverlaid: <apk>`, … line per step, the last one the value's
 *   source), then the value (a file resource's value is its path inside the APK).
 */

/** One overlay line of `cmd overlay list`. */
export interface OverlayListEntry {
  /** `[x]`: enabled; `[ ]`: disabled; `---`: neither (missing target, no idmap, …). */
  readonly state: 'enabled' | 'disabled' | 'other'
  /** `package` or `package:overlayName` (fabricated overlays). */
  readonly overlay: string
}

/** `cmd overlay list PACKAGE`: the target's overlays, lowest priority first. */
export function parseOverlayList(text: string, target: string): OverlayListEntry[] {
  const entries: OverlayListEntry[] = []
  let inTarget = false
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '')
    const m = /^(\[x\]|\[ \]|---) (\S+)$/.exec(line)
    if (m === null) {
      inTarget = line === target
      continue
    }
    if (!inTarget) continue
    const mark = m[1]
    entries.push({
      state: mark === '[x]' ? 'enabled' : mark === '[ ]' ? 'disabled' : 'other',
      overlay: m[2] as string,
    })
  }
  return entries
}

/** `cmd overlay list` text: each target, its overlays, a blank line after each target when all are listed. */
export function formatOverlayList(
  targets: ReadonlyArray<{
    readonly target: string
    readonly overlays: readonly OverlayListEntry[]
  }>,
  oneTarget: boolean,
): string {
  return targets
    .map(
      (t) =>
        `${t.target}\n${t.overlays.map(formatOverlayListLine).join('')}${oneTarget ? '' : '\n'}`,
    )
    .join('')
}

/** One overlay's line of `cmd overlay list` (printListOverlay). */
export function formatOverlayListLine(entry: OverlayListEntry): string {
  const mark = { enabled: '[x]', disabled: '[ ]', other: '---' } as const
  return `${mark[entry.state]} ${entry.overlay}\n`
}

/** One item of `cmd overlay dump` (OverlayManagerSettings.SettingsItem). */
export interface OverlaySettingsItem {
  readonly packageName: string
  readonly overlayName: string | null
  readonly userId: number
  readonly targetPackageName: string
  readonly targetOverlayableName: string | null
  /** The overlay APK's path. */
  readonly baseCodePath: string
  /** `STATE_ENABLED_IMMUTABLE`, `STATE_ENABLED`, `STATE_DISABLED`, … */
  readonly state: string
  readonly isEnabled: boolean
  readonly isMutable: boolean
  readonly priority: number
  readonly category: string | null
  readonly isFabricated: boolean
}

const DUMP_FIELDS = [
  ['mPackageName', 'packageName'],
  ['mOverlayName', 'overlayName'],
  ['mUserId', 'userId'],
  ['mTargetPackageName', 'targetPackageName'],
  ['mTargetOverlayableName', 'targetOverlayableName'],
  ['mBaseCodePath', 'baseCodePath'],
  ['mState', 'state'],
  ['mIsEnabled', 'isEnabled'],
  ['mIsMutable', 'isMutable'],
  ['mPriority', 'priority'],
  ['mCategory', 'category'],
  ['mIsFabricated', 'isFabricated'],
] as const

/** The settings items of `cmd overlay dump` / `dumpsys overlay`, in the dump's (priority) order. */
export function parseOverlayDump(text: string): OverlaySettingsItem[] {
  const items: OverlaySettingsItem[] = []
  let fields: Map<string, string> | undefined
  for (const raw of text.split('\n')) {
    const line = raw.replace(/\r$/, '').trim()
    if (/^\S+:\d+ \{$/.test(line)) {
      fields = new Map()
      continue
    }
    if (fields === undefined) continue
    if (line === '}') {
      const item = itemOf(fields)
      if (item !== undefined) items.push(item)
      fields = undefined
      continue
    }
    const m = /^(m[A-Za-z]+)\.*: ?(.*)$/.exec(line)
    if (m !== null) fields.set(m[1] as string, m[2] as string)
  }
  return items
}

function itemOf(fields: ReadonlyMap<string, string>): OverlaySettingsItem | undefined {
  const get = (key: string): string | undefined => fields.get(key)
  const nullable = (key: string): string | null => {
    const v = get(key)
    return v === undefined || v === 'null' ? null : v
  }
  const packageName = get('mPackageName')
  const target = get('mTargetPackageName')
  const path = get('mBaseCodePath')
  if (packageName === undefined || target === undefined || path === undefined) return undefined
  const priority = Number(get('mPriority'))
  return {
    packageName,
    overlayName: nullable('mOverlayName'),
    userId: Number(get('mUserId') ?? 0) || 0,
    targetPackageName: target,
    targetOverlayableName: nullable('mTargetOverlayableName'),
    baseCodePath: path,
    state: get('mState') ?? 'STATE_UNKNOWN',
    isEnabled: get('mIsEnabled') === 'true',
    isMutable: get('mIsMutable') !== 'false',
    priority: Number.isFinite(priority) ? priority : 0,
    category: nullable('mCategory'),
    isFabricated: get('mIsFabricated') === 'true',
  }
}

/** `cmd overlay dump` items as OverlayManagerSettings prints them (two-space indent). */
export function formatOverlayDump(items: readonly OverlaySettingsItem[]): string {
  return items
    .map((item) => {
      const id =
        item.overlayName === null ? item.packageName : `${item.packageName}:${item.overlayName}`
      const width = Math.max(...DUMP_FIELDS.map(([f]) => f.length)) + 1
      const lines = DUMP_FIELDS.map(([label, key]) => {
        const value = item[key]
        return `  ${label.padEnd(width, '.')}: ${value === null ? 'null' : String(value)}\n`
      })
      return `${id}:${item.userId} {\n${lines.join('')}}\n`
    })
    .join('')
}

/** One step of a resource's resolution (`Found initial: /system/framework/framework-res.apk`). */
export interface ResolutionStep {
  readonly kind: 'initial' | 'better' | 'overlaid' | 'overlaid-inline' | 'skipped' | 'no-entry'
  /** The APK (ApkAssets debug name: its path). */
  readonly apk: string
  /** The configuration the step matched, when not the default one. */
  readonly config?: string
}

export interface OverlayLookup {
  /** `0x01170012`. */
  readonly resourceId: string
  /** `android:xml/power_profile`. */
  readonly resource: string
  readonly steps: readonly ResolutionStep[]
  /** The value printed after the resolution: for a file resource, its path inside the APK. */
  readonly value?: string
}

const STEP_KINDS: ReadonlyArray<readonly [string, ResolutionStep['kind']]> = [
  ['Found initial', 'initial'],
  ['Found better', 'better'],
  ['Overlaid inline', 'overlaid-inline'],
  ['Overlaid', 'overlaid'],
  ['Skipped', 'skipped'],
  ['No entry', 'no-entry'],
]

/**
 * `cmd overlay lookup --verbose …`: the resolution and the value; `undefined` when the text holds
 * no `Resolution for` line (an older release without `lookup`, an error, a lookup without
 * `--verbose`).
 */
export function parseOverlayLookup(text: string): OverlayLookup | undefined {
  const lines = text.split('\n').map((l) => l.replace(/\r$/, ''))
  const head = lines.findIndex((l) => l.startsWith('Resolution for '))
  if (head < 0) return undefined
  const m = /^Resolution for (0x[0-9a-fA-F]+) ?(.*)$/.exec(lines[head] as string)
  const steps: ResolutionStep[] = []
  let i = head + 1
  for (; i < lines.length; i++) {
    const line = lines[i] as string
    if (!line.startsWith('\t')) break
    const body = line.slice(1)
    const kind = STEP_KINDS.find(([label]) => body.startsWith(`${label}: `))
    if (kind === undefined) continue // `For config - …`
    const rest = body.slice(kind[0].length + 2)
    const dash = rest.lastIndexOf(' - ')
    const apk = dash > 0 && !rest.slice(dash + 3).includes('/') ? rest.slice(0, dash) : rest
    steps.push({
      kind: kind[1],
      apk,
      ...(apk === rest ? {} : { config: rest.slice(dash + 3) }),
    })
  }
  const value = lines.slice(i).find((l) => l.trim() !== '')
  return {
    resourceId: m?.[1] ?? '',
    resource: m?.[2] ?? '',
    steps,
    ...(value === undefined ? {} : { value: value.trim() }),
  }
}

/** `cmd overlay lookup --verbose` text for a resolved resource. */
export function formatOverlayLookup(lookup: OverlayLookup, config: string): string {
  const label = Object.fromEntries(STEP_KINDS.map(([l, k]) => [k, l])) as Record<
    ResolutionStep['kind'],
    string
  >
  const steps = lookup.steps
    .map((s) => `\n\t${label[s.kind]}: ${s.apk}${s.config === undefined ? '' : ` - ${s.config}`}`)
    .join('')
  return `Resolution for ${lookup.resourceId} ${lookup.resource}\n\tFor config - ${config}${steps}\n${lookup.value ?? ''}\n`
}

/** The step whose APK the value comes from: the last one that found or overlaid it. */
export function winningStep(lookup: OverlayLookup): ResolutionStep | undefined {
  return lookup.steps.filter((s) => s.kind !== 'skipped' && s.kind !== 'no-entry').at(-1)
}
