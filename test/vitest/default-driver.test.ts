// Which Appium driver a session gets when the user names none.
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, expect, test, vi } from 'vitest'
import {
  adbClientAvailable,
  defaultAutomationName,
  findOnPath,
} from '../../src/session/appium-server.js'

afterEach(() => vi.unstubAllEnvs())

test('UiAutomator2 on every phone when an adb client is on the PATH', () => {
  const dir = mkdtempSync(join(tmpdir(), 'default-driver-'))
  try {
    symlinkSync(process.execPath, join(dir, 'adb'))
    vi.stubEnv('PATH', dir)
    vi.stubEnv('ANDROID_HOME', undefined)
    vi.stubEnv('ANDROID_SDK_ROOT', undefined)
    expect(findOnPath('adb')).toBe(process.execPath)
    expect(adbClientAvailable()).toBe(true)
    expect(defaultAutomationName(true)).toBe('UiAutomator2')
    expect(defaultAutomationName(false)).toBe('UiAutomator2')
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test('without any adb client the virtual device falls back to the VirtualDevice driver', () => {
  vi.stubEnv('PATH', mkdtempSync(join(tmpdir(), 'no-adb-')))
  vi.stubEnv('ANDROID_HOME', undefined)
  vi.stubEnv('ANDROID_SDK_ROOT', undefined)
  expect(adbClientAvailable()).toBe(false)
  expect(defaultAutomationName(true)).toBe('VirtualDevice')
  // A real phone is reached through an adb server anyway: UiAutomator2, whose error says why.
  expect(defaultAutomationName(false)).toBe('UiAutomator2')
  vi.stubEnv('ANDROID_SDK_ROOT', '/opt/android-sdk')
  expect(defaultAutomationName(true)).toBe('UiAutomator2')
})
