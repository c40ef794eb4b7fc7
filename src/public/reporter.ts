/** `vitest-energy/reporter`: the `energy` reporter (Vitest loads reporters by default export). */
import EnergyReporter from '../../reporter/index.js'

export default EnergyReporter
export type { EnergyReporterOptions } from '../../reporter/index.js'
