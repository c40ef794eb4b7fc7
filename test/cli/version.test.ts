/** `vitest-energy --version` / `-v` print package.json's version; `--help` lists them. */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { renderUsage } from '../../src/cli/index.js'
import { REPO, runBin } from './_run.js'

const { version } = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  version: string
}

test.each(['--version', '-v'])('vitest-energy %s prints the version and exits 0', (flag) => {
  const r = runBin([flag])
  expect(r.err).toBe('')
  expect(r.out).toBe(`${version}\n`)
  expect(r.code).toBe(0)
})

test('--help mentions --version', async () => {
  expect(await renderUsage()).toMatch(/^ {2}-v, --version +\S/m)
})
