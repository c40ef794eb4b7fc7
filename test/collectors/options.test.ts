/** The plugin options that choose the new power collectors (src/session/options.ts). */
import { describe, expect, test } from 'vitest'
import { resolveOptions } from '../../src/session/options.js'
import { isEnergyError } from '../../src/model/index.js'

function fieldOf(input: unknown): string {
  try {
    resolveOptions(input)
  } catch (error) {
    if (isEnergyError(error) && error.code === 'E_INVALID_OPTION')
      return String(error.details['field'])
    throw error
  }
  throw new Error('expected E_INVALID_OPTION')
}

const app = 'com.example.trails'

describe('power source options', () => {
  test('batterystats with a profile path; external meter with a file or a command', () => {
    expect(resolveOptions({ app, power: 'batterystats', powerProfile: 'pp.xml' })).toMatchObject({
      power: 'batterystats',
      powerProfile: 'pp.xml',
      externalMeter: null,
    })
    expect(
      resolveOptions({
        app,
        power: 'external-meter',
        externalMeter: { file: 'm.csv', nominalVoltageV: 4.2 },
      }).externalMeter,
    ).toEqual({ file: 'm.csv', command: null, nominalVoltageV: 4.2 })
    expect(
      resolveOptions({
        app,
        power: 'external-meter',
        externalMeter: { command: ['meter', '-o', '-'] },
      }).externalMeter,
    ).toEqual({ file: null, command: ['meter', '-o', '-'], nominalVoltageV: null })
    expect(resolveOptions({ app }).powerProfile).toBeNull()
  })

  test('bad meter settings name the field', () => {
    expect(fieldOf({ app, power: 'external-meter' })).toBe('externalMeter')
    expect(fieldOf({ app, externalMeter: { file: 'a', command: ['b'] } })).toBe('externalMeter')
    expect(fieldOf({ app, externalMeter: {} })).toBe('externalMeter')
    expect(fieldOf({ app, externalMeter: { command: [] } })).toBe('externalMeter.command')
    expect(fieldOf({ app, externalMeter: { command: 'meter --stdout' } })).toBe(
      'externalMeter.command',
    )
    expect(fieldOf({ app, externalMeter: { file: 'm', nominalVoltageV: -1 } })).toBe(
      'externalMeter.nominalVoltageV',
    )
    expect(fieldOf({ app, power: 'monsoon' })).toBe('power')
    expect(fieldOf({ app, powerProfile: '' })).toBe('powerProfile')
  })
})

describe('artifact options', () => {
  test('raw data kept for failed tests by default, under .vitest-energy/artifacts', () => {
    expect(resolveOptions({ app })).toMatchObject({
      artifacts: 'on-failure',
      artifactsDir: '.vitest-energy/artifacts',
    })
    expect(resolveOptions({ app, artifacts: 'always', artifactsDir: 'raw' })).toMatchObject({
      artifacts: 'always',
      artifactsDir: 'raw',
    })
  })

  test('a value that is not one of the three, or an empty folder, is E_INVALID_OPTION', () => {
    expect(fieldOf({ app, artifacts: 'sometimes' })).toBe('artifacts')
    expect(fieldOf({ app, artifactsDir: '' })).toBe('artifactsDir')
  })
})

describe('the window end', () => {
  test('waits for the reading past the end by default; extrapolate on request; nothing else', () => {
    expect(resolveOptions({ app }).endReading).toBe('wait')
    expect(resolveOptions({ app, endReading: 'extrapolate' }).endReading).toBe('extrapolate')
    expect(fieldOf({ app, endReading: 'fast' })).toBe('endReading')
    expect(fieldOf({ app, endReading: true })).toBe('endReading')
  })
})
