/**
 * Every file of the shared corpus's 5_power_monitor (../shared/corpus, PROVENANCE.md §5 and §7)
 * through the trace decoder: the binary traces decode (packet counts as PROVENANCE.md gives them,
 * counted there independently), everything else is refused as not a trace with a reason a user
 * would recognise. The meter side of the same folder is in test/formats/meter/meter.test.ts.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import {
  PerfettoErrors,
  decodePowerTrace,
  isPerfettoTrace,
  parseTextProto,
} from '../../../src/formats/perfetto/index.js'
import { expectEnergyError } from '../simpleperf/_helpers.js'
import { sharedCorpus } from '../_shared-corpus.js'

const shared = sharedCorpus('5_power_monitor')
const read = (file: string): Uint8Array =>
  new Uint8Array(readFileSync(join(shared?.dir ?? '', file)))

/** file → packets, CPUs with sched_switch data (none: no schedule) */
const TRACES: Record<string, { packets: number; cpus?: number[] }> = {
  'emanafa_perfetto_trace-1620136726-1614351254.0.pftrace': { packets: 33 },
  'emanafa_perfetto_trace-1623058691-1622418866.0.pftrace': { packets: 404 },
  'emanafa_perfetto_trace-1625480726-1625480595.0.pftrace': { packets: 9 },
  'mspt_androidBasicMemory.pftrace': { packets: 100 },
  'mspt_androidGpu.pftrace': { packets: 5790 },
  // gzip-compressed (9.3 MB inflated)
  'mspt_chrome.pftrace': { packets: 293610 },
  'mspt_perfetto_trace_cpu_sampling_not_scoped.pftrace': { packets: 2462, cpus: [0, 1, 2, 3] },
  'mspt_test_trace.perfetto-trace': { packets: 1901, cpus: [0, 1, 2, 3, 5, 6] },
  'nowinandroid_fork_app_startup.perfetto-trace': { packets: 7676 },
}

/** file → what the refusal says */
const NOT_TRACES: Record<string, string> = {
  'catapult_battor.txt': 'BattOr',
  'catapult_battor_test_data.txt': 'BattOr',
  'emanafa_perfetto_trace-1620136726-1614351254.0.systrace': 'ftrace text',
  'emanafa_perfetto_trace-1623058691-1622418866.0.systrace': 'ftrace text',
  'emanafa_perfetto_trace-1625480726-1625480595.0.systrace': 'ftrace text',
  'perfetto_testfixture_energy_breakdown.textproto': 'protobuf text',
  'perfetto_testfixture_entity_state_residency.textproto': 'protobuf text',
  'perfetto_testfixture_power_rails.textproto': 'protobuf text',
  'physalia_audioapps_profiler_db.csv': 'input is text',
  'physalia_fdroid_profiler_db.csv': 'input is text',
  'spirals_pixel8_shiba_power_rails_summary.csv': 'input is text',
}

describe.skipIf(shared === undefined)(
  'shared corpus 5_power_monitor through the trace decoder',
  () => {
    test('every file is listed here', () => {
      expect(shared?.files).toEqual([...Object.keys(TRACES), ...Object.keys(NOT_TRACES)].sort())
    })
    test.each(Object.entries(TRACES))('%s decodes', (file, expected) => {
      const bytes = read(file)
      expect(isPerfettoTrace(bytes)).toBe(true)
      const trace = decodePowerTrace(bytes)
      expect(trace.packetCount).toBe(expected.packets)
      expect(trace.hasPowerData).toBe(false)
      expect(trace.warnings).toEqual([])
      expect(trace.schedule?.cpus).toEqual(expected.cpus)
    })
    test.each(Object.entries(NOT_TRACES))('%s is refused as not a trace', (file, says) => {
      const bytes = read(file)
      expect(isPerfettoTrace(bytes)).toBe(false)
      const error = expectEnergyError(() => decodePowerTrace(bytes), PerfettoErrors.NOT_A_TRACE)
      expect(error.message).toContain(says)
    })
    test.each(Object.keys(NOT_TRACES).filter((f) => f.endsWith('.textproto')))(
      '%s is protobuf text the text parser reads',
      (file) => {
        const message = parseTextProto(new TextDecoder().decode(read(file)))
        expect(message.fields.length).toBeGreaterThan(0)
        expect(new Set(message.fields.map((f) => f.name))).toEqual(new Set(['packet']))
      },
    )
  },
)
