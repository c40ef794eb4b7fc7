/** `vitest-energy/node` (main process, scripts): the virtual device and the building blocks. */
export { startVirtualDevice } from '../virtual-device/index.js'
export type { StartVirtualDeviceOptions, VirtualDeviceServer } from '../virtual-device/index.js'
export type { EnergyReport, ReportEntry } from '../../reporter/report.js'
export { buildEnergyReport } from '../../reporter/report.js'
export {
  BudgetErrors,
  parseBudgetFile,
  readBudgetFile,
  serializeBudgetFile,
  updateBudgets,
  writeBudgetFile,
} from '../budgets/index.js'
export type { BudgetEntry, BudgetFile, BudgetUpdate } from '../budgets/index.js'
