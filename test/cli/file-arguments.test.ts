/**
 * A directory or a missing file where a command expects a file: a coded EnergyError, printed once
 * on stderr without a stack trace, exit code 1 (not a raw EISDIR from node).
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, test } from 'vitest'
import { runCommand } from '../../src/cli/index.js'
import { runBin } from './_run.js'

const cwd = mkdtempSync(join(tmpdir(), 'cli-file-arguments-'))
mkdirSync(join(cwd, 'a-directory'))
copyFileSync(
  fileURLToPath(new URL('../fixtures/classify/couto-table5-text.json', import.meta.url)),
  join(cwd, 'spectrum.json'),
)
afterAll(() => rmSync(cwd, { recursive: true, force: true }))
const SPECTRUM = 'spectrum.json'

function expectOneCodedError(err: string, code: string): void {
  expect(err.match(/\[E_[A-Z0-9_]+\]/g), err).toEqual([`[${code}]`])
  expect(err).not.toContain('    at ')
  expect(err).toMatch(/^vitest-energy: /)
}

describe('the real executable', () => {
  test.each([
    ['a directory', 'a-directory'],
    ['a missing file', 'missing.trace'],
  ])('trace given %s', (_what, file) => {
    const r = runBin(['trace', file], cwd)
    expectOneCodedError(r.err, 'E_ART_TRACE_FILE_UNREADABLE')
    expect(r.err).toContain(join(cwd, file))
    expect(r.out).toBe('')
    expect(r.code).toBe(1)
  })

  test('trace --thread given a directory (the first of two passes)', () => {
    const r = runBin(['trace', 'a-directory', '--thread', 'main'], cwd)
    expectOneCodedError(r.err, 'E_ART_TRACE_FILE_UNREADABLE')
    expect(r.code).toBe(1)
  })
})

describe('every command through runCommand', () => {
  test.each([
    [['trace', 'a-directory'], 'E_ART_TRACE_FILE_UNREADABLE'],
    [['classify', 'a-directory'], 'E_CLASSIFY_INVALID_SPECTRUM'],
    [['classify', 'missing.json'], 'E_CLASSIFY_INVALID_SPECTRUM'],
    [['classify', SPECTRUM, '--knowledge-base', 'a-directory'], 'E_CLASSIFY_KB_READ'],
    [['classify', SPECTRUM, '--knowledge-base', 'missing.json'], 'E_CLASSIFY_KB_READ'],
    [
      ['classify', SPECTRUM, '--knowledge-base', 'a-directory', '--update-knowledge-base'],
      'E_CLASSIFY_KB_WRITE',
    ],
    [['virtual-device', '--app', 'a-directory'], 'E_VDEV_APP_MODEL_UNREADABLE'],
    [['virtual-device', '--app', 'missing.json'], 'E_VDEV_APP_MODEL_UNREADABLE'],
    [['virtual-device', '--power-profile', 'a-directory'], 'E_VDEV_BAD_OPTION'],
    [['virtual-device', '--power-profile', 'missing.xml'], 'E_VDEV_BAD_OPTION'],
  ])('%j → %s', async (argv, code) => {
    let out = ''
    let err = ''
    const exit = await runCommand(argv, {
      out: (t) => (out += t),
      err: (t) => (err += t),
      cwd,
      // Should a virtual device start after all, it stops at once instead of waiting for Ctrl-C.
      signal: AbortSignal.abort(),
    })
    expectOneCodedError(err, code)
    expect(out).toBe('')
    expect(exit).toBe(1)
  })
})
