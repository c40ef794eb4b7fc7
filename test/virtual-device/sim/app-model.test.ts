import { describe, expect, test } from 'vitest'
import { EnergyError } from '../../../src/model/index.js'
import {
  APP_MODEL_SCHEMA,
  parseAppModel,
  validateAppModel,
  type AppModel,
} from '../../../src/virtual-device/sim/app-model.js'
import { DEMO_APP_MODEL } from '../../../src/virtual-device/sim/demo-app.js'
import { SimErrors } from '../../../src/virtual-device/sim/errors.js'

function clone(): Record<string, unknown> {
  return JSON.parse(JSON.stringify(DEMO_APP_MODEL)) as Record<string, unknown>
}

function errorOf(fn: () => unknown): EnergyError {
  try {
    fn()
  } catch (error) {
    if (error instanceof EnergyError) return error
    throw error
  }
  throw new Error('expected an EnergyError')
}

describe('app model', () => {
  test('the demo model is schema-valid and has the documented shape', () => {
    const model = validateAppModel(clone())
    expect(model.package).toBe('com.example.trails')
    expect(model.launcherActivity).toBe('com.example.trails/.MainActivity')
    expect(model.profileable).toBe(true)
    const descs = model.screens.flatMap((s) => s.widgets.map((w) => w.contentDesc))
    expect(descs).toContain('feed')
    expect(descs).toContain('feed-list')
    const json = JSON.stringify(model)
    expect(json).toContain('com.example.trails.FeedAdapter.bind')
    for (const bug of ['slow-loop', 'leaking-gps-listener', 'wakelock-never-released', 'polling']) {
      expect(json, bug).toContain(bug)
    }
  })

  test('the schema object is JSON (it is published in the docs)', () => {
    expect(JSON.parse(JSON.stringify(APP_MODEL_SCHEMA))).toEqual(APP_MODEL_SCHEMA)
  })

  test('a missing required field is named with its path', () => {
    const model = clone()
    delete model.profileable
    const error = errorOf(() => validateAppModel(model))
    expect(error.code).toBe(SimErrors.APP_MODEL_INVALID)
    expect(error.details.path).toBe('$.profileable')
    expect(error.message).toContain('$.profileable is required')
    expect(error.hint).toContain('docs/virtual-device.md')
  })

  test('a bad nested value names the deepest field and why', () => {
    const model = clone() as { screens: { widgets: { bounds: number[] }[] }[] }
    model.screens[0]!.widgets[1]!.bounds = [0, 1, 2]
    const error = errorOf(() => validateAppModel(model))
    expect(error.details.path).toBe('$.screens[0].widgets[1].bounds')
    expect(error.message).toMatch(/fewer than 4 items/)
  })

  test('a hardware entry of the wrong shape is rejected inside the call tree', () => {
    const model = clone() as {
      screens: { onEnter?: { calls: { children: { hardware: unknown[] }[] }[] } }[]
    }
    model.screens[0]!.onEnter!.calls[0]!.children[0]!.hardware = [{ kind: 'gps', stop: -1 }]
    const error = errorOf(() => validateAppModel(model))
    expect(error.details.path).toBe('$.screens[0].onEnter.calls[0].children[0].hardware[0].stop')
  })

  test('unknown properties and bad method names are rejected', () => {
    const a = clone()
    a.colour = 'red'
    expect(errorOf(() => validateAppModel(a)).message).toContain("unknown property 'colour'")
    const b = clone() as { screens: { onEnter?: { calls: { method: string }[] } }[] }
    b.screens[0]!.onEnter!.calls[0]!.method = 'not a method'
    expect(errorOf(() => validateAppModel(b)).details.path).toBe(
      '$.screens[0].onEnter.calls[0].method',
    )
  })

  test('consistency: navigate to an unknown screen and duplicate ids', () => {
    const a = clone() as { screens: { id: string }[] }
    a.screens[1]!.id = 'feed'
    const e1 = errorOf(() => validateAppModel(a))
    expect(e1.code).toBe(SimErrors.APP_MODEL_INCONSISTENT)
    expect(e1.details.path).toBe('$.screens[1].id')
    const b = clone() as { screens: { widgets: { actions?: { tap?: { navigate?: string } } }[] }[] }
    b.screens[0]!.widgets.at(-1)!.actions!.tap!.navigate = 'nowhere'
    const e2 = errorOf(() => validateAppModel(b))
    expect(e2.message).toContain("unknown screen 'nowhere'")
  })

  test('text that is not JSON gives E_VDEV_APP_MODEL_UNREADABLE', () => {
    expect(errorOf(() => parseAppModel('{ nope')).code).toBe(SimErrors.APP_MODEL_UNREADABLE)
  })

  test('a minimal model is accepted', () => {
    const minimal: AppModel = parseAppModel(
      JSON.stringify({
        package: 'org.x.y',
        launcherActivity: 'org.x.y/.Main',
        debuggable: true,
        profileable: false,
        screens: [{ id: 'main', activity: '.Main', widgets: [] }],
      }),
    )
    expect(minimal.screens).toHaveLength(1)
  })
})
