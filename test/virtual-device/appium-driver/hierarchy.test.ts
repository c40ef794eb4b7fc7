import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { XMLParser } from 'fast-xml-parser'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  attributeOf,
  descendants,
  isDisplayed,
  nodeAtPath,
  parseBounds,
  parseHierarchy,
  renderPageSource,
  screenSize,
  type UiNode,
} from '../../../src/virtual-device/appium-driver/hierarchy.js'
import { isEnergyError } from '../../../src/model/index.js'
import { expectLinear } from '../../formats/_linear.js'
import { sharedCorpus } from '../../formats/_shared-corpus.js'

const corpus = (name: string): string =>
  readFileSync(
    new URL(`../../fixtures/corpus/6_dumpsys_uiautomator/${name}`, import.meta.url),
    'utf8',
  )
const fixture = (name: string): string =>
  readFileSync(new URL(`../../fixtures/appium-driver/${name}`, import.meta.url), 'utf8')

describe('parseHierarchy on real device dumps', () => {
  // Node counts from test/fixtures/corpus/PROVENANCE.md (counted there independently).
  test.each([
    ['nora_ui_dump.xml', 32],
    ['nora_window_dump.xml', 28],
    ['nora_window_dump2.xml', 23],
    ['nora_chat_dump.xml', 30],
  ])('%s has %i nodes', (name, count) => {
    const root = parseHierarchy(corpus(name))
    expect(root.tag).toBe('hierarchy')
    expect(descendants(root)).toHaveLength(count)
    expect(screenSize(root)).toEqual({ width: 1080, height: 2400 })
  })

  test('tags are view classes, attributes as dumped, entities decoded', () => {
    const root = parseHierarchy(corpus('nora_ui_dump.xml'))
    const first = root.children[0]!
    expect(first.tag).toBe('android.widget.FrameLayout')
    expect(first.attrs['package']).toBe('com.example.localagent')
    expect(first.rect).toEqual({ x: 0, y: 0, width: 1080, height: 2400 })
    const multiline = descendants(root).find((n) => (n.attrs['text'] ?? '').includes('华盛顿'))
    expect(multiline?.attrs['text']).toContain('\n\n')
  })

  test('paths identify nodes', () => {
    const root = parseHierarchy(fixture('trails-feed.xml'))
    for (const n of descendants(root)) expect(nodeAtPath(root, n.path)).toBe(n)
    expect(nodeAtPath(root, '0/9/9')).toBeUndefined()
  })
})

describe('attributes', () => {
  const root = parseHierarchy(fixture('trails-feed.xml'))
  const refresh = descendants(root).find((n) => n.attrs['content-desc'] === 'refresh')!
  const screen = screenSize(root)
  test('UiAutomator2 names and aliases', () => {
    expect(attributeOf(refresh, 'text', screen)).toBe('Refresh')
    expect(attributeOf(refresh, 'content-desc', screen)).toBe('refresh')
    expect(attributeOf(refresh, 'contentDescription', screen)).toBe('refresh')
    expect(attributeOf(refresh, 'resource-id', screen)).toBe('com.example.trails:id/refresh')
    expect(attributeOf(refresh, 'resourceId', screen)).toBe('com.example.trails:id/refresh')
    expect(attributeOf(refresh, 'class', screen)).toBe('android.widget.Button')
    expect(attributeOf(refresh, 'className', screen)).toBe('android.widget.Button')
    expect(attributeOf(refresh, 'clickable', screen)).toBe('true')
    expect(attributeOf(refresh, 'checked', screen)).toBe('false')
    expect(attributeOf(refresh, 'bounds', screen)).toBe('[780,80][1060,230]')
    expect(attributeOf(refresh, 'displayed', screen)).toBe('true')
    expect(attributeOf(refresh, 'no-such-attribute', screen)).toBeNull()
  })

  test('displayed needs an on-screen area', () => {
    const at = (bounds: string) => ({ ...refresh, rect: parseBounds(bounds) })
    expect(isDisplayed(at('[0,0][0,100]'), screen)).toBe(false)
    expect(isDisplayed(at('[1080,0][1200,100]'), screen)).toBe(false)
    expect(isDisplayed(at('[-50,-50][10,10]'), screen)).toBe(true)
  })

  test('bounds parsing', () => {
    expect(parseBounds('[1,2][11,22]')).toEqual({ x: 1, y: 2, width: 10, height: 20 })
    expect(parseBounds('[1,2,11,22]')).toBeUndefined()
    expect(parseBounds(undefined)).toBeUndefined()
  })
})

describe('page source', () => {
  test('UiAutomator2 layout, reparses to the same tree', () => {
    const root = parseHierarchy(corpus('nora_chat_dump.xml'))
    const source = renderPageSource(root)
    expect(
      source.startsWith(
        '<?xml version=\'1.0\' encoding=\'UTF-8\' standalone=\'yes\' ?>\n<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">',
      ),
    ).toBe(true)
    const parsed = new XMLParser({
      ignoreAttributes: false,
      preserveOrder: true,
      htmlEntities: true,
    }).parse(source) as unknown[]
    let count = 0
    const texts: string[] = []
    const walk = (entries: unknown[]): void => {
      for (const e of entries as Record<string, unknown>[]) {
        for (const [k, v] of Object.entries(e)) {
          if (k === ':@' || k === '?xml' || !Array.isArray(v)) continue
          if (k !== 'hierarchy') {
            count++
            const attrs = e[':@'] as Record<string, string>
            texts.push(attrs['@_text'] ?? '')
            expect(attrs['@_class']).toBe(k)
            expect(attrs['@_displayed']).toMatch(/^(true|false)$/)
          }
          walk(v)
        }
      }
    }
    walk(parsed)
    expect(count).toBe(30)
    expect(texts).toEqual(descendants(root).map((n) => n.attrs['text'] ?? ''))
    expect(texts.some((t) => t.includes('\n'))).toBe(true)
  })
})

describe('bad input', () => {
  const expectHierarchyError = (input: string): void => {
    try {
      parseHierarchy(input)
      expect.unreachable('should have thrown')
    } catch (error) {
      expect(isEnergyError(error) && error.code).toBe('E_APPIUM_HIERARCHY')
    }
  }
  test('not XML, empty, the screen-off message', () => {
    expectHierarchyError('')
    expectHierarchyError('ERROR: null root node returned by UiTestAutomationBridge.\n')
    expectHierarchyError('<html></html>')
  })
  test('malformed XML names the line', () => {
    try {
      parseHierarchy("<?xml version='1.0' ?><hierarchy><node text=\"a></node></hierarchy>")
      expect.unreachable('should have thrown')
    } catch (error) {
      expect(isEnergyError(error) && error.code).toBe('E_APPIUM_HIERARCHY')
      expect(isEnergyError(error) && error.details.line).toBe(1)
    }
  })
  test('truncations and corruptions give a tree or E_APPIUM_HIERARCHY, never a crash', () => {
    const xml = fixture('trails-feed.xml')
    fc.assert(
      fc.property(fc.nat(xml.length), fc.nat(xml.length), fc.char(), (cut, at, ch) => {
        for (const input of [xml.slice(0, cut), xml.slice(0, at) + ch + xml.slice(at + 1)]) {
          try {
            const root = parseHierarchy(input)
            expect(root.tag).toBe('hierarchy')
          } catch (error) {
            expect(isEnergyError(error) && error.code).toBe('E_APPIUM_HIERARCHY')
          }
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('Appium page source read back (issue 16)', () => {
  const strip = (n: UiNode): unknown => ({
    tag: n.tag,
    path: n.path,
    rect: n.rect,
    attrs: Object.fromEntries(Object.entries(n.attrs).filter(([k]) => k !== 'displayed')),
    children: n.children.map(strip),
  })
  test('class-named elements under <hierarchy> read to the same tree as the dump', () => {
    const root = parseHierarchy(corpus('nora_ui_dump.xml'))
    const source = renderPageSource(root)
    const back = parseHierarchy(source)
    expect(descendants(back)).toHaveLength(32)
    expect(back.children.map(strip)).toEqual(root.children.map(strip))
    expect(screenSize(back)).toEqual({ width: 1080, height: 2400 })
    // and writing it again gives the same page source (no doubled `displayed`)
    expect(renderPageSource(back)).toBe(source)
  })
  test('the screen comes from <hierarchy width height>, tags name classes when there is no class', () => {
    const root = parseHierarchy(
      "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n" +
        '<hierarchy index="0" class="hierarchy" rotation="0" width="1440" height="3120">\n' +
        '  <android.widget.FrameLayout index="0" bounds="[0,0][1440,1500]" displayed="true">\n' +
        '    <android.widget.TextView index="0" text="hi" bounds="[0,0][100,50]" displayed="true" />\n' +
        '  </android.widget.FrameLayout>\n</hierarchy>\n',
    )
    expect(descendants(root).map((n) => n.tag)).toEqual([
      'android.widget.FrameLayout',
      'android.widget.TextView',
    ])
    expect(screenSize(root)).toEqual({ width: 1440, height: 3120 })
    expect(nodeAtPath(root, '0/0')?.attrs['text']).toBe('hi')
  })
  test('time is linear in the input: many views, many attributes', () => {
    const head = '<?xml version=\'1.0\' ?><hierarchy rotation="0">'
    expectLinear(
      (n) => `${head}${'<node class="a" bounds="[0,0][1,1]"/>'.repeat(n / 40)}</hierarchy>`,
      (xml) => screenSize(parseHierarchy(xml)),
      8000,
    )
    expectLinear(
      (n) =>
        `${head}<node ${Array.from({ length: n / 10 }, (_, i) => `a${i}="1"`).join(' ')}/></hierarchy>`,
      parseHierarchy,
      8000,
    )
  })
  test('a hierarchy without a single view is refused, not "OK, nothing"', () => {
    for (const empty of [
      '<?xml version=\'1.0\' ?><hierarchy rotation="0"></hierarchy>',
      '<?xml version=\'1.0\' ?><hierarchy rotation="0">\n  text only\n</hierarchy>',
      '<?xml version=\'1.0\' ?><hierarchy rotation="0" />',
    ]) {
      try {
        parseHierarchy(empty)
        expect.unreachable(`should have refused ${empty}`)
      } catch (error) {
        expect(isEnergyError(error) && error.code).toBe('E_APPIUM_HIERARCHY')
      }
    }
  })
})

describe('shared corpus 6_dumpsys_uiautomator (../shared/corpus)', () => {
  const shared = sharedCorpus('6_dumpsys_uiautomator')
  const read = (name: string): string => readFileSync(join(shared?.dir ?? '', name), 'utf8')
  // node counts and screen sizes from PROVENANCE.md §6 and §7 (counted there independently)
  test.skipIf(shared === undefined).each([
    ['igorganapolsky_macyolo_window_dump.xml', 95, 1080, 2340],
    ['iml1s_termuxflutteride_window_dump_v1.xml', 21, 1080, 2220],
    ['iml1s_termuxflutteride_window_dump_v2.xml', 17, 1080, 2400],
    ['nora_chat_dump.xml', 30, 1080, 2400],
    ['nora_ui_dump.xml', 32, 1080, 2400],
    ['nora_window_dump.xml', 28, 1080, 2400],
    ['nora_window_dump2.xml', 23, 1080, 2400],
  ])('%s: %i nodes on a %ix%i screen', (name, count, width, height) => {
    const root = parseHierarchy(read(name))
    expect(descendants(root)).toHaveLength(count)
    expect(screenSize(root)).toEqual({ width, height })
    // its page source reads back to the same tree
    expect(descendants(parseHierarchy(renderPageSource(root)))).toHaveLength(count)
  })
  test.skipIf(shared === undefined)('every file is a dump above, or refused', () => {
    expect(shared?.files.filter((f) => !f.endsWith('.xml'))).toEqual([
      'nuviotv_dumpsys_gfxinfo.txt',
    ])
    try {
      parseHierarchy(read('nuviotv_dumpsys_gfxinfo.txt'))
      expect.unreachable('dumpsys gfxinfo is not a hierarchy')
    } catch (error) {
      expect(isEnergyError(error) && error.code).toBe('E_APPIUM_HIERARCHY')
      expect(isEnergyError(error) && error.message).toContain('no <hierarchy>')
    }
  })
})
