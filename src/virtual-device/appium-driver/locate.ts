/**
 * Locator strategies over a parsed hierarchy, as UiAutomator2 resolves them: accessibility id is
 * `content-desc`, id is `resource-id` (with or without the `<package>:id/` prefix), class name is
 * the view class, plus XPath and `-android uiautomator` selectors.
 */
import { EnergyError } from '../../model/index.js'
import { AppiumDriverErrors } from './errors.js'
import { descendants, type UiNode } from './hierarchy.js'
import { parseUiSelectors, evaluateUiSelectors } from './uiselector.js'
import { evaluateXPath, parseXPath } from './xpath.js'

/** Locator strategies the driver accepts (W3C names plus Appium's). */
export const LOCATOR_STRATEGIES = [
  'accessibility id',
  'id',
  'xpath',
  'class name',
  '-android uiautomator',
] as const

export type LocatorStrategy = (typeof LOCATOR_STRATEGIES)[number]

/** A compiled locator: checked once, evaluated on every poll of an implicit wait. */
export type Locator = (root: UiNode, context: UiNode) => UiNode[]

/** Compiles `selector` for `strategy`. Throws `E_APPIUM_SELECTOR` for a malformed selector. */
export function compileLocator(strategy: string, selector: string): Locator {
  switch (strategy) {
    case 'accessibility id':
      return (_root, context) =>
        descendants(context).filter((n) => n.attrs['content-desc'] === selector)
    case 'id': {
      const suffix = `:id/${selector}`
      const qualified = selector.includes(':id/')
      return (_root, context) =>
        descendants(context).filter((n) => {
          const id = n.attrs['resource-id'] ?? ''
          return id === selector || (!qualified && id.endsWith(suffix))
        })
    }
    case 'class name':
      return (_root, context) => descendants(context).filter((n) => n.attrs['class'] === selector)
    case 'xpath': {
      const query = parseXPath(selector)
      return (root, context) => evaluateXPath(query, root, context)
    }
    case '-android uiautomator': {
      const selectors = parseUiSelectors(selector)
      return (_root, context) => evaluateUiSelectors(selectors, context)
    }
    default:
      throw new EnergyError({
        code: AppiumDriverErrors.SELECTOR,
        message: `locator strategy '${strategy}' is not supported`,
        hint: `Use one of: ${LOCATOR_STRATEGIES.join(', ')}.`,
        details: { strategy },
      })
  }
}
