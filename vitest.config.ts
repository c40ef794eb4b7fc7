import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: [
      'test/**/*.test.ts',
      'src/**/*.test.ts',
      'reporter/**/*.test.ts',
      'matchers/**/*.test.ts',
    ],
    exclude: ['**/node_modules/**', 'test/fixtures/**', 'test/.scratch/**', 'dist/**'],
    setupFiles: ['test/setup.ts'],
    reporters: ['default', './test/summary-reporter.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
