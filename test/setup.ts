// Property tests explore new random cases on every local run; in CI they replay one fixed seed so
// a landing never depends on luck. A failure prints its seed and path to replay it locally.
import fc from 'fast-check'

if (process.env['CI'] !== undefined && process.env['CI'] !== '' && process.env['CI'] !== '0') {
  fc.configureGlobal({ seed: 20261122 })
}
