import { defineConfig } from 'vitest/config'
import { energy } from 'vitest-energy/plugin'

export default defineConfig({
  plugins: [energy({ app: 'com.example.trails', virtualDevice: { devices: 1 }, baseline: 'none' })],
})
