/**
 * `vitest-energy/jest-environment` (Jest loads test environments by default export):
 *
 *   testEnvironment: 'vitest-energy/jest-environment',
 *   testEnvironmentOptions: { app: 'com.example.app' },
 */
import EnergyEnvironment from '../jest/environment.js'

export default EnergyEnvironment
