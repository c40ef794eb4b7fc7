/**
 * The app model: a JSON description of the simulated app (what `uiautomator dump` and an Appium
 * driver see, and the work each UI action starts). Validated with ajv against `APP_MODEL_SCHEMA`;
 * a model that fails names the field path and why (E_VDEV_APP_MODEL_INVALID).
 */
import { readFileSync } from 'node:fs'
import { Ajv, type ErrorObject } from 'ajv'
import { EnergyError } from '../../model/index.js'
import { SimErrors } from './errors.js'

/** A method call tree node. CPU cost is given at the reference frequency of the big-ish core. */
export interface MethodCall {
  /** Fully qualified Java method, `com.example.trails.FeedAdapter.bind`. */
  readonly method: string
  /** JVM signature for traces. @default `()V` */
  readonly signature?: string
  /** Source file for traces. @default `<SimpleClassName>.java` */
  readonly file?: string
  /** CPU time spent in this method itself per call, ms at `referenceFreqKhz`. */
  readonly selfCpuMs: number
  /** Thread that runs it; children inherit it. @default the parent's thread, `main` at the root */
  readonly thread?: string
  /** Consecutive calls of this node (a loop). @default 1 */
  readonly repeat?: number
  /**
   * Run the repetitions on a thread pool instead: repetition i goes to thread
   * `<name>-thread-<i mod threads + 1>` (an ExecutorService), concurrently on several cores.
   */
  readonly pool?: { readonly name: string; readonly threads: number }
  readonly children?: readonly MethodCall[]
  /** Hardware this call starts (asynchronous energy initiated by this method). */
  readonly hardware?: readonly HardwareUse[]
  /** Free-text label of a deliberate energy bug (`slow-loop`, ...). Documentation only. */
  readonly bug?: string
}

/** Hardware use started by a method call. Times in ms of device time. */
export type HardwareUse =
  | {
      readonly kind: 'radio'
      readonly radio: 'wifi' | 'cellular'
      /** Active (transferring) time. */
      readonly activeMs: number
      /** Tail (high-power idle before the radio sleeps). @default wifi 200, cellular 10000 */
      readonly tailMs?: number
      readonly bug?: string
    }
  | {
      readonly kind: 'gps'
      /** Session length, or `until-screen-exit`, or `never` (a leaking listener; ends at force-stop). */
      readonly stop: number | 'until-screen-exit' | 'never'
      readonly bug?: string
    }
  | {
      readonly kind: 'wakelock'
      readonly tag: string
      /** Hold time, or `never` (never released; ends at force-stop). */
      readonly holdMs: number | 'never'
      readonly bug?: string
    }
  | {
      readonly kind: 'bluetooth' | 'sensor'
      /** `accelerometer`, ... for sensors; documentation only. */
      readonly name?: string
      readonly durationMs: number
      readonly bug?: string
    }

/** What one UI action (or a screen entry, or a periodic tick) does. */
export interface Work {
  readonly calls?: readonly MethodCall[]
  /** Screen to show afterwards (screen `id`). */
  readonly navigate?: string
  /** Sets the screen brightness, 0–255. */
  readonly brightness?: number
  /** Repeating background work started by this action (polling, sync). */
  readonly periodic?: {
    readonly everyMs: number
    /** Number of ticks. @default unlimited (until force-stop) */
    readonly count?: number
    readonly calls: readonly MethodCall[]
  }
}

/** A widget as uiautomator sees it. */
export interface Widget {
  /** `com.example.trails:id/feed_list`; empty when none. */
  readonly resourceId?: string
  /** Accessibility id (Appium `~feed`). */
  readonly contentDesc?: string
  /** @default `android.widget.TextView` */
  readonly className?: string
  readonly text?: string
  /** `[left, top, right, bottom]` in px. */
  readonly bounds: readonly [number, number, number, number]
  readonly clickable?: boolean
  readonly scrollable?: boolean
  readonly actions?: { readonly tap?: Work; readonly text?: Work }
}

export interface Screen {
  readonly id: string
  /** Activity class shown for this screen, `.MainActivity` or fully qualified. */
  readonly activity: string
  readonly widgets: readonly Widget[]
  /** Work done each time the screen is shown. */
  readonly onEnter?: Work
  /**
   * Average luminance of what the screen shows, 0 (black) – 1 (white): an OLED panel's power above
   * `screen.on` scales with it (phone physics). @default 0.5 (what `screen.full` stands for)
   */
  readonly luminance?: number
}

/** The app's Linux uid when its model gives none. */
const DEFAULT_APP_UID = 10123

/** The app's Linux uid: its model's, else 10123. */
export function appUidOf(app: Pick<AppModel, 'uid'>): number {
  return app.uid ?? DEFAULT_APP_UID
}

export interface AppModel {
  readonly package: string
  /** `com.example.trails/.MainActivity`. */
  readonly launcherActivity: string
  readonly versionName?: string
  /** Linux uid of the app. @default 10123 */
  readonly uid?: number
  readonly debuggable: boolean
  readonly profileable: boolean
  /** Screen shown after launch (screen `id`). @default the first screen */
  readonly initialScreen?: string
  /** Screen size in px. @default [1080, 2400] */
  readonly displayPx?: readonly [number, number]
  readonly screens: readonly Screen[]
}

const methodName = '^[A-Za-z_$][\\w$]*(\\.[A-Za-z_$][\\w$]*)+(\\.(<init>|<clinit>))?$'

/** JSON Schema (draft-07) of the app model. Documented in docs/virtual-device.md. */
export const APP_MODEL_SCHEMA = {
  $id: 'https://vitest-energy.dev/schemas/app-model.json',
  type: 'object',
  additionalProperties: false,
  required: ['package', 'launcherActivity', 'debuggable', 'profileable', 'screens'],
  properties: {
    $schema: { type: 'string' },
    package: { type: 'string', pattern: '^[a-zA-Z][\\w]*(\\.[a-zA-Z][\\w]*)+$' },
    launcherActivity: { type: 'string', pattern: '^[\\w.]+/[\\w.$]+$' },
    versionName: { type: 'string' },
    uid: { type: 'integer', minimum: 10000, maximum: 19999 },
    debuggable: { type: 'boolean' },
    profileable: { type: 'boolean' },
    initialScreen: { type: 'string' },
    displayPx: {
      type: 'array',
      items: { type: 'integer', minimum: 1 },
      minItems: 2,
      maxItems: 2,
    },
    screens: { type: 'array', minItems: 1, items: { $ref: '#/definitions/screen' } },
  },
  definitions: {
    screen: {
      type: 'object',
      additionalProperties: false,
      required: ['id', 'activity', 'widgets'],
      properties: {
        id: { type: 'string', minLength: 1 },
        activity: { type: 'string', pattern: '^[\\w.$]+$' },
        widgets: { type: 'array', items: { $ref: '#/definitions/widget' } },
        onEnter: { $ref: '#/definitions/work' },
        luminance: { type: 'number', minimum: 0, maximum: 1 },
      },
    },
    widget: {
      type: 'object',
      additionalProperties: false,
      required: ['bounds'],
      properties: {
        resourceId: { type: 'string' },
        contentDesc: { type: 'string' },
        className: { type: 'string', pattern: '^[\\w.$]+$' },
        text: { type: 'string' },
        bounds: {
          type: 'array',
          items: { type: 'integer', minimum: 0 },
          minItems: 4,
          maxItems: 4,
        },
        clickable: { type: 'boolean' },
        scrollable: { type: 'boolean' },
        actions: {
          type: 'object',
          additionalProperties: false,
          properties: { tap: { $ref: '#/definitions/work' }, text: { $ref: '#/definitions/work' } },
        },
      },
    },
    work: {
      type: 'object',
      additionalProperties: false,
      properties: {
        calls: { type: 'array', items: { $ref: '#/definitions/call' } },
        navigate: { type: 'string', minLength: 1 },
        brightness: { type: 'integer', minimum: 0, maximum: 255 },
        periodic: {
          type: 'object',
          additionalProperties: false,
          required: ['everyMs', 'calls'],
          properties: {
            everyMs: { type: 'number', exclusiveMinimum: 0 },
            count: { type: 'integer', minimum: 1 },
            calls: { type: 'array', items: { $ref: '#/definitions/call' } },
          },
        },
      },
    },
    call: {
      type: 'object',
      additionalProperties: false,
      required: ['method', 'selfCpuMs'],
      properties: {
        method: { type: 'string', pattern: methodName },
        signature: { type: 'string', pattern: '^\\(.*\\).+$' },
        file: { type: 'string', minLength: 1 },
        selfCpuMs: { type: 'number', minimum: 0 },
        thread: { type: 'string', minLength: 1, maxLength: 64 },
        repeat: { type: 'integer', minimum: 1, maximum: 1000000 },
        pool: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'threads'],
          properties: {
            name: { type: 'string', pattern: '^[\\w.-]{1,48}$' },
            threads: { type: 'integer', minimum: 1, maximum: 64 },
          },
        },
        children: { type: 'array', items: { $ref: '#/definitions/call' } },
        hardware: { type: 'array', items: { $ref: '#/definitions/hardware' } },
        bug: { type: 'string' },
      },
    },
    hardware: {
      type: 'object',
      required: ['kind'],
      properties: { kind: { enum: ['radio', 'gps', 'wakelock', 'bluetooth', 'sensor'] } },
      allOf: [
        {
          if: { properties: { kind: { const: 'radio' } } },
          then: {
            additionalProperties: false,
            required: ['radio', 'activeMs'],
            properties: {
              kind: true,
              radio: { enum: ['wifi', 'cellular'] },
              activeMs: { type: 'number', exclusiveMinimum: 0 },
              tailMs: { type: 'number', minimum: 0 },
              bug: { type: 'string' },
            },
          },
        },
        {
          if: { properties: { kind: { const: 'gps' } } },
          then: {
            additionalProperties: false,
            required: ['stop'],
            properties: {
              kind: true,
              stop: {
                oneOf: [
                  { type: 'number', exclusiveMinimum: 0 },
                  { enum: ['until-screen-exit', 'never'] },
                ],
              },
              bug: { type: 'string' },
            },
          },
        },
        {
          if: { properties: { kind: { const: 'wakelock' } } },
          then: {
            additionalProperties: false,
            required: ['tag', 'holdMs'],
            properties: {
              kind: true,
              tag: { type: 'string', minLength: 1 },
              holdMs: { oneOf: [{ type: 'number', exclusiveMinimum: 0 }, { const: 'never' }] },
              bug: { type: 'string' },
            },
          },
        },
        {
          if: { properties: { kind: { enum: ['bluetooth', 'sensor'] } } },
          then: {
            additionalProperties: false,
            required: ['durationMs'],
            properties: {
              kind: true,
              name: { type: 'string' },
              durationMs: { type: 'number', exclusiveMinimum: 0 },
              bug: { type: 'string' },
            },
          },
        },
      ],
    },
  },
} as const

let compiled: (((data: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined

function validator(): ((data: unknown) => boolean) & { errors?: ErrorObject[] | null } {
  if (compiled === undefined) {
    const ajv = new Ajv({ allErrors: true, strict: false })
    compiled = ajv.compile(APP_MODEL_SCHEMA)
  }
  return compiled
}

/** Turns one ajv error into `screens[0].widgets[1].bounds: must NOT have fewer than 4 items`. */
function describe(error: ErrorObject): { path: string; why: string } {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'))
  let path = '$'
  for (const segment of segments) path += /^\d+$/.test(segment) ? `[${segment}]` : `.${segment}`
  let why = error.message ?? 'is invalid'
  const params = error.params as Record<string, unknown>
  if (error.keyword === 'additionalProperties' && typeof params.additionalProperty === 'string') {
    why = `has unknown property '${params.additionalProperty}'`
  } else if (error.keyword === 'required' && typeof params.missingProperty === 'string') {
    path += `.${params.missingProperty}`
    why = 'is required'
  } else if (error.keyword === 'enum' && Array.isArray(params.allowedValues)) {
    why = `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
  }
  return { path, why }
}

/** Validates parsed JSON as an app model; throws E_VDEV_APP_MODEL_INVALID naming the field. */
export function validateAppModel(data: unknown, source = 'app model'): AppModel {
  const validate = validator()
  if (!validate(data)) {
    // The most specific error first: the deepest path, skipping if/then/oneOf wrappers.
    const errors = (validate.errors ?? []).filter(
      (e) => e.keyword !== 'if' && e.keyword !== 'oneOf' && e.keyword !== 'allOf',
    )
    errors.sort((a, b) => b.instancePath.length - a.instancePath.length)
    const first = errors[0] ?? validate.errors?.[0]
    const { path, why } = first === undefined ? { path: '$', why: 'is invalid' } : describe(first)
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more problem(s))` : ''
    throw new EnergyError({
      code: SimErrors.APP_MODEL_INVALID,
      message: `${source}: ${path} ${why}${more}`,
      hint: 'Fix the field named above; the schema is documented in docs/virtual-device.md.',
      details: { format: 'app model', path, reason: why },
    })
  }
  const model = data as AppModel
  checkConsistency(model, source)
  return model
}

function checkConsistency(model: AppModel, source: string): void {
  const fail = (path: string, why: string): never => {
    throw new EnergyError({
      code: SimErrors.APP_MODEL_INCONSISTENT,
      message: `${source}: ${path} ${why}`,
      hint: 'Make screen ids unique and point navigate/initialScreen at existing screens.',
      details: { format: 'app model', path, reason: why },
    })
  }
  const ids = new Set<string>()
  model.screens.forEach((screen, i) => {
    if (ids.has(screen.id)) fail(`$.screens[${i}].id`, `duplicates screen id '${screen.id}'`)
    ids.add(screen.id)
  })
  if (model.initialScreen !== undefined && !ids.has(model.initialScreen)) {
    fail('$.initialScreen', `names unknown screen '${model.initialScreen}'`)
  }
  if (!model.launcherActivity.startsWith(`${model.package}/`)) {
    fail('$.launcherActivity', `must start with the package name '${model.package}/'`)
  }
  const checkWork = (work: Work | undefined, path: string): void => {
    if (work?.navigate !== undefined && !ids.has(work.navigate)) {
      fail(`${path}.navigate`, `names unknown screen '${work.navigate}'`)
    }
  }
  model.screens.forEach((screen, i) => {
    checkWork(screen.onEnter, `$.screens[${i}].onEnter`)
    screen.widgets.forEach((widget, j) => {
      const [l, t, r, b] = widget.bounds
      if (r <= l || b <= t)
        fail(`$.screens[${i}].widgets[${j}].bounds`, 'must have right > left and bottom > top')
      checkWork(widget.actions?.tap, `$.screens[${i}].widgets[${j}].actions.tap`)
      checkWork(widget.actions?.text, `$.screens[${i}].widgets[${j}].actions.text`)
    })
  })
}

/** Parses app model JSON text. */
export function parseAppModel(text: string, source = 'app model'): AppModel {
  let data: unknown
  try {
    data = JSON.parse(text)
  } catch (cause) {
    throw new EnergyError({
      code: SimErrors.APP_MODEL_UNREADABLE,
      message: `${source} is not valid JSON: ${(cause as Error).message}`,
      hint: 'Check the file with a JSON linter; the schema is in docs/virtual-device.md.',
      details: { format: 'app model' },
      cause,
    })
  }
  return validateAppModel(data, source)
}

/** Reads and validates an app model file. */
export function loadAppModel(path: string): AppModel {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (cause) {
    throw new EnergyError({
      code: SimErrors.APP_MODEL_UNREADABLE,
      message: `cannot read app model '${path}': ${(cause as Error).message}`,
      hint: 'Pass an existing JSON file to --app (or omit it to use the demo app).',
      details: { format: 'app model', path },
      cause,
    })
  }
  return parseAppModel(text, path)
}

/** `com.example.trails/.MainActivity` → `com.example.trails.MainActivity`. */
export function qualifyActivity(pkg: string, activity: string): string {
  const name = activity.includes('/') ? (activity.split('/')[1] ?? activity) : activity
  return name.startsWith('.') ? `${pkg}${name}` : name
}
