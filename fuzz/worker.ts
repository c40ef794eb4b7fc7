/** The fuzzer's worker thread: runs inputs of one target, one message each, under the parent's watchdog. */
import { parentPort, workerData } from 'node:worker_threads'
import { runInput } from './run-input.js'
import { targetNamed } from './targets.js'

const target = targetNamed((workerData as { target: string }).target)
if (target === undefined)
  throw new Error(`no fuzz target ${(workerData as { target: string }).target}`)

parentPort?.on('message', (message: { id: number; input: Uint8Array; points: number[] }) => {
  const report = runInput(target, message.input, message.points)
  parentPort?.postMessage({
    id: message.id,
    report,
    externalBytes: process.memoryUsage().arrayBuffers,
  })
})
