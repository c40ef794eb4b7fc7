import type { VirtualDeviceHandle } from '../../../src/virtual-device/contract.js'
import { execShell } from '../../../src/virtual-device/shell/index.js'

/** Runs a command line; stdout and stderr merged as over legacy `adb shell`. */
export async function run(
  device: VirtualDeviceHandle,
  line: string,
  signal: AbortSignal = new AbortController().signal,
): Promise<{ status: number; out: string }> {
  let out = ''
  const write = (c: string | Uint8Array): void => {
    out += typeof c === 'string' ? c : Buffer.from(c).toString('utf8')
  }
  const status = await execShell(device, line, { write, writeErr: write }, signal)
  return { status, out }
}
