import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { isEnergyError } from '../../../src/model/index.js'
import {
  compileLocator,
  evaluateUiSelectors,
  evaluateXPath,
  parseHierarchy,
  parseUiSelectors,
  parseXPath,
  type UiNode,
} from '../../../src/virtual-device/appium-driver/index.js'
import { descendants } from '../../../src/virtual-device/appium-driver/hierarchy.js'

const feed = parseHierarchy(
  readFileSync(new URL('../../fixtures/appium-driver/trails-feed.xml', import.meta.url), 'utf8'),
)
const chat = parseHierarchy(
  readFileSync(
    new URL('../../fixtures/corpus/6_dumpsys_uiautomator/nora_chat_dump.xml', import.meta.url),
    'utf8',
  ),
)

const xpath = (q: string, root: UiNode = feed, context?: UiNode): UiNode[] =>
  evaluateXPath(parseXPath(q), root, context)
const ids = (nodes: UiNode[]): string[] =>
  nodes.map((n) => (n.attrs['resource-id'] ?? '').replace('com.example.trails:id/', ''))
const NAV = ['nav_feed', 'nav_map', 'nav_sync', 'nav_settings', 'nav_export']

function expectSelectorError(fn: () => unknown, offset?: number): void {
  try {
    fn()
    expect.unreachable('should have thrown')
  } catch (error) {
    expect(isEnergyError(error) && error.code).toBe('E_APPIUM_SELECTOR')
    if (offset !== undefined) expect(isEnergyError(error) && error.details.offset).toBe(offset)
  }
}

describe('XPath subset (hand-checked against the Trails feed screen)', () => {
  test('what Appium users write', () => {
    expect(ids(xpath('//android.widget.Button[@text="Refresh"]'))).toEqual(['refresh'])
    expect(ids(xpath("//*[@resource-id='com.example.trails:id/refresh']"))).toEqual(['refresh'])
    expect(ids(xpath('//*[@content-desc="feed-list"]'))).toEqual(['feed_list'])
    expect(ids(xpath('//*[contains(@resource-id, "nav_")]'))).toEqual(NAV)
    expect(ids(xpath('//*[starts-with(@content-desc, "s")]'))).toEqual(['nav_sync', 'nav_settings'])
    expect(ids(xpath('//android.widget.TextView'))).toEqual(['title'])
  })

  test('indexes are per parent; a parenthesized group indexes the whole result', () => {
    // The 5 nav tabs are the last children of android:id/content.
    expect(ids(xpath('//android.widget.FrameLayout[@clickable="true"][2]'))).toEqual(['nav_map'])
    expect(ids(xpath('(//android.widget.FrameLayout[@clickable="true"])[last()]'))).toEqual([
      'nav_export',
    ])
    expect(ids(xpath('(//*[@clickable="true"])[position() <= 2]'))).toEqual([
      'feed_list',
      'refresh',
    ])
    // The first FrameLayout child of each parent: under <hierarchy>, under the LinearLayout
    // (android:id/content) and under android:id/content (nav_feed, after title/list/button).
    expect(xpath('//android.widget.FrameLayout[1]').map((n) => n.path)).toEqual([
      '0',
      '0/0/0',
      '0/0/0/3',
    ])
  })

  test('absolute paths, axes, parent, boolean logic', () => {
    expect(
      ids(xpath('/hierarchy/android.widget.FrameLayout/android.widget.LinearLayout/*')),
    ).toEqual(['android:id/content'])
    expect(ids(xpath('//*[@content-desc="refresh"]/..'))).toEqual(['android:id/content'])
    expect(ids(xpath('//*[@content-desc="refresh"]/following-sibling::*[1]'))).toEqual(['nav_feed'])
    expect(ids(xpath('//*[@content-desc="refresh"]/preceding-sibling::*[1]'))).toEqual([
      'feed_list',
    ])
    expect(ids(xpath('//*[@text="Refresh" or @content-desc="map"]'))).toEqual([
      'refresh',
      'nav_map',
    ])
    expect(ids(xpath('//*[@clickable="true" and not(@text="")]'))).toEqual(['refresh'])
    expect(ids(xpath('//*[@resource-id!="" and string-length(@text) > 6]'))).toEqual(['refresh'])
    expect(ids(xpath('//android.widget.FrameLayout[android.widget.Button]'))).toEqual([
      'android:id/content',
    ])
    expect(ids(xpath('//*[@content-desc="map"] | //*[@text="Trails"]'))).toEqual([
      'title',
      'nav_map',
    ])
    expect(xpath('//*[@no-such-attr]')).toEqual([])
  })

  test('relative to an element', () => {
    const content = xpath('//*[@resource-id="android:id/content"]')[0]!
    expect(ids(xpath('./android.widget.Button', feed, content))).toEqual(['refresh'])
    expect(ids(xpath('.//*[@content-desc="sync"]', feed, content))).toEqual(['nav_sync'])
    expect(xpath('android.widget.LinearLayout', feed, content)).toEqual([])
  })

  test('invalid syntax names the character offset', () => {
    expectSelectorError(() => parseXPath(''), 0)
    expectSelectorError(() => parseXPath('//*[@text="Sync"'), 16)
    expectSelectorError(() => parseXPath('//*[@text="Sync]'), 10)
    expectSelectorError(() => parseXPath('//*[text()="Sync"]'), 4)
    expectSelectorError(() => parseXPath('//*[matches(@text, "a")]'), 4)
    expectSelectorError(() => parseXPath('//namespace::x'), 2)
    expectSelectorError(() => parseXPath('//@text'))
    expectSelectorError(() => parseXPath('//*[contains(@text)]'))
    expectSelectorError(() => parseXPath('//a]'))
    expectSelectorError(() => parseXPath('#'))
  })

  test('properties on a real dump: //*, (//*)[n], class and attribute equality, ..', () => {
    // `//*` also matches the <hierarchy> element itself, as in UiAutomator2's page source.
    const all = [chat, ...descendants(chat)]
    expect(xpath('//*', chat)).toEqual(all)
    fc.assert(
      fc.property(fc.integer({ min: 1, max: all.length }), (n) => {
        const node = all[n - 1]!
        expect(xpath(`(//*)[${n}]`, chat)).toEqual([node])
        expect(xpath(`//${node.tag}`, chat)).toEqual(all.filter((m) => m.tag === node.tag))
        const bounds = node.attrs['bounds'] ?? ''
        const same = all.filter((m) => (m.attrs['bounds'] ?? '') === bounds && m !== chat)
        if (node !== chat) {
          expect(xpath(`//*[@bounds="${bounds}"]`, chat)).toEqual(same)
          const parents = all.filter((p) => same.some((m) => m.parent === p))
          expect(xpath(`//*[@bounds="${bounds}"]/..`, chat)).toEqual(parents)
        }
      }),
      { numRuns: 60 },
    )
  })

  test('arbitrary strings never crash the parser', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => {
        try {
          xpath(s)
        } catch (error) {
          expect(isEnergyError(error) && error.code).toBe('E_APPIUM_SELECTOR')
        }
      }),
      { numRuns: 500 },
    )
  })
})

describe('UiSelector', () => {
  const ui = (s: string): string[] => ids(evaluateUiSelectors(parseUiSelectors(s), feed))
  test('the methods people use', () => {
    expect(ui('new UiSelector().text("Refresh")')).toEqual(['refresh'])
    expect(ui('new UiSelector().textContains("efre")')).toEqual(['refresh'])
    expect(ui('new UiSelector().textStartsWith("Tra")')).toEqual(['title'])
    expect(ui('new UiSelector().resourceId("com.example.trails:id/nav_map")')).toEqual(['nav_map'])
    expect(ui('new UiSelector().description("sync")')).toEqual(['nav_sync'])
    expect(ui('new UiSelector().descriptionContains("feed")')).toEqual(['feed_list', 'nav_feed'])
    expect(ui('new UiSelector().className("android.widget.Button")')).toEqual(['refresh'])
    expect(ui('new UiSelector().resourceIdMatches(".*nav_(map|sync)")')).toEqual([
      'nav_map',
      'nav_sync',
    ])
    expect(
      ui('new UiSelector().className("android.widget.FrameLayout").clickable(true).instance(2)'),
    ).toEqual(['nav_sync'])
    expect(ui('new UiSelector().scrollable(true)')).toEqual(['feed_list'])
    expect(ui('new UiSelector().text("Refresh"); new UiSelector().description("map")')).toEqual([
      'refresh',
      'nav_map',
    ])
    expect(ui('new UiSelector().text("refresh")')).toEqual([])
    expect(ui('new UiSelector().text("say \\"hi\\"")')).toEqual([])
  })

  test('malformed selectors are E_APPIUM_SELECTOR with an offset', () => {
    expectSelectorError(() => parseUiSelectors(''), 0)
    expectSelectorError(() => parseUiSelectors('new UiSelector().text("Sync"'), 28)
    expectSelectorError(() => parseUiSelectors('new UiSelector().text(Sync)'), 22)
    expectSelectorError(() => parseUiSelectors('new UiSelector().fromParent(new UiSelector())'), 17)
    expectSelectorError(() => parseUiSelectors('new UiSelector().clickable("yes")'), 17)
    expectSelectorError(() => parseUiSelectors('new UiSelector().textMatches("(")'), 17)
    expectSelectorError(() => parseUiSelectors('new UiScrollable(new UiSelector())'), 0)
    expectSelectorError(() => parseUiSelectors('new UiSelector()'))
    fc.assert(
      fc.property(fc.string({ maxLength: 40 }), (s) => {
        try {
          parseUiSelectors(s)
        } catch (error) {
          expect(isEnergyError(error) && error.code).toBe('E_APPIUM_SELECTOR')
        }
      }),
      { numRuns: 300 },
    )
  })
})

describe('strategies', () => {
  const find = (strategy: string, selector: string): string[] =>
    ids(compileLocator(strategy, selector)(feed, feed))
  test('accessibility id, id with and without the package, class name', () => {
    expect(find('accessibility id', 'refresh')).toEqual(['refresh'])
    expect(find('id', 'refresh')).toEqual(['refresh'])
    expect(find('id', 'com.example.trails:id/refresh')).toEqual(['refresh'])
    expect(find('id', 'android:id/content')).toEqual(['android:id/content'])
    expect(find('id', 'other.pkg:id/refresh')).toEqual([])
    expect(find('id', 'content')).toEqual(['android:id/content'])
    expect(find('class name', 'android.widget.TextView')).toEqual(['title'])
    expect(find('xpath', '//*[@text="Trails"]')).toEqual(['title'])
    expect(find('-android uiautomator', 'new UiSelector().text("Trails")')).toEqual(['title'])
  })
  test('an unknown strategy is E_APPIUM_SELECTOR', () => {
    expectSelectorError(() => compileLocator('css selector', 'button'))
  })
})
