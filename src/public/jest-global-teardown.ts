/** `vitest-energy/jest-global-teardown` (Jest loads `globalTeardown` by default export). */
import globalTeardown from '../jest/global-teardown.js'

export default globalTeardown
