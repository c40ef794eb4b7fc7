/** The parser never crashes or hangs: anything it cannot read is a ShellSyntaxError. */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseShell, ShellSyntaxError } from '../../../src/virtual-device/shell/parse.js'
import { createDevice } from '../../../src/virtual-device/device.js'
import { fastClock } from '../../../src/virtual-device/clock.js'
import { run } from './_run.js'

const alphabet = [...'ab $\'"\\;&|()<>{}`#\n\t=!012-']

describe('parseShell', () => {
  it('parses or throws ShellSyntaxError for any input', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 40 }), (chars) => {
        const source = chars.join('')
        try {
          parseShell(source)
        } catch (error) {
          expect(error).toBeInstanceOf(ShellSyntaxError)
        }
      }),
      { numRuns: 2000 },
    )
  })

  it('the interpreter answers any such input with a status, never an exception', async () => {
    const device = createDevice({ serial: 'fuzz', clock: fastClock() })
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...alphabet.filter((c) => c !== '`')), { maxLength: 30 }),
        async (chars) => {
          const r = await run(device, chars.join(''))
          expect(Number.isInteger(r.status)).toBe(true)
        },
      ),
      { numRuns: 300 },
    )
  })

  it('builds the expected tree for redirections and lists', () => {
    const tree = parseShell('a 2>&1 >f b & c && d || e; f | g')
    expect(tree.items.map((i) => i.background)).toEqual([true, false, false])
    const first = tree.items[0]?.first.commands[0]
    expect(first?.type === 'simple' && first.redirects.map((r) => [r.fd, r.op])).toEqual([
      [2, '>&'],
      [1, '>'],
    ])
    expect(tree.items[1]?.rest.map((r) => r.op)).toEqual(['&&', '||'])
    expect(tree.items[2]?.first.commands).toHaveLength(2)
  })
})
