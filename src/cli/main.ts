/** The `vitest-energy` executable: the only place that touches process.argv and process.exit. */
import { terminalScreen } from '../../reporter/screen.js'
import { runCommand } from './index.js'

const controller = new AbortController()
process.once('SIGINT', () => controller.abort())
process.once('SIGTERM', () => controller.abort())

const code = await runCommand(process.argv.slice(2), {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  cwd: process.cwd(),
  signal: controller.signal,
  env: process.env,
  screen: terminalScreen(process.stdout),
})
process.exitCode = code
