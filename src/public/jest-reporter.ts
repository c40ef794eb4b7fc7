/** `vitest-energy/jest-reporter`: the energy reporter for Jest 30 (Jest loads reporters by default export). */
import JestEnergyReporter from '../../reporter/jest.js'

export default JestEnergyReporter
export type { JestEnergyReporterOptions } from '../../reporter/jest.js'
