// @ts-check
import js from '@eslint/js'
import globals from 'globals'
import tseslint from 'typescript-eslint'

/**
 * Module boundaries (docs/ARCHITECTURE.md, "What each folder may import"), machine-checked.
 * Each entry: the folder, and the project folders it must not import.
 */
const boundaries = {
  'src/model': [
    'formats',
    'device',
    'collectors',
    'attribution',
    'stats',
    'classify',
    'session',
    'vitest',
    'jest',
    'virtual-device',
    'cli',
    'public',
    'reporter',
    'matchers',
  ],
  'src/stats': [
    'formats',
    'device',
    'collectors',
    'attribution',
    'classify',
    'session',
    'vitest',
    'jest',
    'virtual-device',
    'cli',
    'public',
    'reporter',
    'matchers',
  ],
  'src/formats': [
    'device',
    'collectors',
    'attribution',
    'stats',
    'classify',
    'session',
    'vitest',
    'jest',
    'virtual-device',
    'cli',
    'public',
    'reporter',
    'matchers',
  ],
  'src/attribution': [
    'formats',
    'device',
    'collectors',
    'classify',
    'session',
    'vitest',
    'jest',
    'virtual-device',
    'cli',
    'public',
    'reporter',
    'matchers',
  ],
  'src/classify': [
    'formats',
    'device',
    'collectors',
    'attribution',
    'session',
    'vitest',
    'jest',
    'virtual-device',
    'cli',
    'public',
    'reporter',
    'matchers',
  ],
  'src/device': [
    'collectors',
    'attribution',
    'stats',
    'classify',
    'session',
    'vitest',
    'jest',
    'virtual-device',
    'cli',
    'public',
    'reporter',
    'matchers',
  ],
  'src/collectors': [
    'attribution',
    'classify',
    'session',
    'vitest',
    'jest',
    'virtual-device',
    'cli',
    'public',
    'reporter',
    'matchers',
  ],
  'src/virtual-device': [
    'device',
    'collectors',
    'attribution',
    'classify',
    'session',
    'vitest',
    'jest',
    'cli',
    'public',
    'reporter',
    'matchers',
  ],
  // The Appium driver drives the phone the way real Android drivers do: through ADB, with the
  // product's device layer (never the simulation).
  'src/virtual-device/appium-driver': [
    'collectors',
    'attribution',
    'classify',
    'session',
    'vitest',
    'jest',
    'cli',
    'public',
    'reporter',
    'matchers',
    'sim',
  ],
  'src/budgets': [
    'formats',
    'device',
    'collectors',
    'attribution',
    'classify',
    'session',
    'vitest',
    'jest',
    'virtual-device',
    'cli',
    'public',
    'reporter',
    'matchers',
  ],
  matchers: [
    'formats',
    'device',
    'collectors',
    'virtual-device',
    'session',
    'vitest',
    'jest',
    'cli',
    'reporter',
  ],
  reporter: [
    'formats',
    'device',
    'collectors',
    'virtual-device',
    'session',
    'vitest',
    'jest',
    'cli',
    'matchers',
  ],
  // Runner-neutral: what a test's energy does, for both runner adapters (src/vitest, src/jest).
  'src/session': ['vitest', 'jest', 'cli', 'public', 'reporter'],
  'src/vitest': ['jest', 'cli', 'public', 'reporter'],
  // The Jest adapter: the session, and the reporter's side-file protocol (reporter/jest-side-files).
  'src/jest': ['vitest', 'cli', 'public'],
}

/** Files of a banned folder that a folder may still import. */
const allowed = {
  // The protocol by which test processes hand the reporter energy read after a test ended.
  'src/vitest': { reporter: ['late-results.js'] },
}

/** Sub-folders with their own entry above are not also held to their parent's rules. */
const nested = (folder) =>
  Object.keys(boundaries)
    .filter((other) => other.startsWith(`${folder}/`))
    .map((other) => `${other}/**`)

const boundaryConfigs = Object.entries(boundaries).map(([folder, banned]) => ({
  files: [`${folder}/**/*.ts`],
  ignores: ['**/*.test.ts', ...nested(folder)],
  rules: {
    'no-restricted-imports': [
      'error',
      {
        patterns: banned.map((name) => ({
          // (A folder excluded as a whole could not have files re-included: gitignore rules.)
          group: allowed[folder]?.[name]
            ? [`../**/${name}/**`, ...allowed[folder][name].map((f) => `!../**/${name}/${f}`)]
            : [`../**/${name}/**`, `../**/${name}`],
          message: `${folder} may not import ${name} (see docs/ARCHITECTURE.md).`,
        })),
      },
    ],
  },
}))

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'test/fixtures/**', 'test/.scratch/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.strict,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ExportAllDeclaration[exported=null]',
          message: 'Use explicit named re-exports, not `export *`.',
        },
      ],
    },
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-non-null-assertion': 'off' },
  },
  {
    // The demo's Jest flavour: Jest's globals and the vitest-energy test environment's.
    files: ['example-app-tests/jest/**/*.js'],
    languageOptions: {
      globals: { ...globals.jest, energy: 'readonly', driver: 'readonly', device: 'readonly' },
    },
  },
  ...boundaryConfigs,
)
