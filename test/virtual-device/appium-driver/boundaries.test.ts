import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { inputTextArgument } from '../../../src/virtual-device/appium-driver/index.js'

const dir = new URL('../../../src/virtual-device/appium-driver/', import.meta.url)

describe('the driver reaches the phone only through ADB', () => {
  // The driver must work against any adb server, so it may not import the simulation, the
  // virtual device's ADB server or shell, or its entry point: only the device layer and model.
  test('no imports from the rest of src/virtual-device', () => {
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts'))
    expect(files.length).toBeGreaterThan(5)
    for (const file of files) {
      const source = readFileSync(new URL(file, dir), 'utf8')
      const imports = [...source.matchAll(/from '(\.[^']+)'/g)].map((m) => m[1]!)
      for (const spec of imports) {
        const ok =
          spec.startsWith('./') ||
          spec.startsWith('../../model/') ||
          spec === '../../device/index.js'
        expect(ok, `${file} imports ${spec}`).toBe(true)
      }
    }
  })
})

describe('input text escaping', () => {
  test('spaces travel as %s, the rest is left to shell quoting', () => {
    expect(inputTextArgument('hello world')).toBe('hello%sworld')
    expect(inputTextArgument("it's $HOME")).toBe("it's%s$HOME")
    expect(inputTextArgument('')).toBe('')
  })
})
