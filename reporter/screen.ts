/**
 * The terminal, injected: renderers take a `Screen` and return strings, so they are pure and
 * testable. Resolved once from the environment (NO_COLOR / FORCE_COLOR / TTY).
 */
import pc from 'picocolors'

export interface Screen {
  readonly colors: Pick<typeof pc, 'red' | 'green' | 'yellow' | 'dim' | 'bold' | 'cyan' | 'magenta'>
  readonly width: number
  readonly isTTY: boolean
}

const identity = (text: string | number | null | undefined): string => String(text)

export const plainScreen: Screen = {
  colors: {
    red: identity,
    green: identity,
    yellow: identity,
    dim: identity,
    bold: identity,
    cyan: identity,
    magenta: identity,
  },
  width: 100,
  isTTY: false,
}

export function terminalScreen(
  stream: NodeJS.WriteStream = process.stdout,
  env = process.env,
): Screen {
  const forced = env['FORCE_COLOR'] !== undefined && env['FORCE_COLOR'] !== '0'
  const colored = env['NO_COLOR'] === undefined && (forced || stream.isTTY === true)
  const colors = pc.createColors(colored)
  return { colors, width: stream.columns ?? 100, isTTY: stream.isTTY === true }
}
