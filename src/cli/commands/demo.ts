/**
 * `vitest-energy demo`: the newcomer's first command. Until the virtual device, the Appium driver
 * and the example app tests exist (issues 3, 6, 7), it says plainly what is there to try.
 */
import type { CliCommand } from '../_command.js'
import { commandNames } from '../index.js'

export const demoCommand: CliCommand = {
  name: 'demo',
  summary: 'run the example app’s energy tests on the virtual device',
  usage: 'Usage: vitest-energy demo\n',
  async run(_args, io) {
    io.out(
      [
        'vitest-energy demo',
        '',
        'The end-to-end demo (virtual phone + Appium + example app tests with --reporter=energy)',
        'is not built yet. Commands available in this build:',
        ...commandNames().map((name) => `  npx vitest-energy ${name}`),
        '',
      ].join('\n'),
    )
    return 0
  },
}
