/**
 * `expect(method).toBeGreen()` / `.not.toBeRed()`: the spectrum classifier's colour of a method.
 * Colours are given at the end of a run (the reporter classifies every test's spectrum), so these
 * judge methods that carry one — a classified report's — not a running test's own.
 */
import type { MethodColor, MethodEnergy } from '../src/model/index.js'
import type { MatcherContext, MatcherResult } from './_budget.js'
import { resolveSubject } from './_subject.js'

function colorMatcher(expected: MethodColor, name: string) {
  return function (this: MatcherContext, received: unknown): MatcherResult {
    const subject = resolveSubject(received)
    const hint = `expect(method)${this.isNot ? '.not' : ''}.${name}()`
    if (subject.kind !== 'method') {
      const reason =
        subject.kind === 'unjudgeable'
          ? subject.reason
          : subject.kind === 'repeated-method'
            ? "received a method over repetitions, whose colour is each window's: take one, runs.runs[0].method(…)"
            : 'received a window, not a method'
      return {
        pass: this.isNot,
        message: () => `${hint}\n\n${reason}; use run.method('com.example.Foo.bar')`,
      }
    }
    const method: MethodEnergy = subject.method
    if (method.color === undefined) {
      return {
        pass: this.isNot,
        message: () =>
          `${hint}\n\n${method.method} has no colour: the classifier colours methods at the end of the run, from every test's spectrum (the plugin's \`classify: true\` shows them in the energy report), so a test cannot see its own methods' colours. Judge the method's energy here (\`toConsumeLessThan\`); toBeGreen()/toBeRed() judge methods that carry a colour, such as a classified JSON report's (\`methods[].color\`).`,
      }
    }
    return {
      pass: method.color === expected,
      message: () =>
        `${hint}\n\nExpected: ${this.isNot ? 'not ' : ''}${expected}\nReceived: ${method.color} for ${method.method}`,
    }
  }
}

export const toBeGreen = colorMatcher('green', 'toBeGreen')
export const toBeRed = colorMatcher('red', 'toBeRed')
