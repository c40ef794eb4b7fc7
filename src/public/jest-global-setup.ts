/** `vitest-energy/jest-global-setup` (Jest loads `globalSetup` by default export). */
import globalSetup from '../jest/global-setup.js'

export default globalSetup
