/**
 * Test-only: turn a Perfetto textproto (like the synthetic fixtures from google/perfetto's diff
 * tests) into binary, using the generic text-format parser and protobufjs reflection over the
 * decoder's own schema. Fields the schema does not know are dropped (their packets stay, empty).
 */
import type protobuf from 'protobufjs'
import { TraceType } from '../../../src/formats/perfetto/_schema.js'
import { parseTextProto } from '../../../src/formats/perfetto/index.js'
import type { TextProtoMessage } from '../../../src/formats/perfetto/index.js'

function toObject(message: TextProtoMessage, type: protobuf.Type): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of message.fields) {
    const field = type.fields[f.name]
    if (field === undefined) continue
    field.resolve()
    let value: unknown
    if ('fields' in f.value) {
      value = toObject(f.value, field.resolvedType as protobuf.Type)
    } else if (f.value.kind === 'string') {
      value = f.value.value
    } else if (f.value.kind === 'number') {
      value = f.value.text.includes('.') ? Number(f.value.text) : f.value.text
    } else {
      value = f.value.value === 'true' ? true : f.value.value === 'false' ? false : f.value.value
    }
    if (field.repeated) {
      const list = (out[f.name] as unknown[] | undefined) ?? []
      list.push(value)
      out[f.name] = list
    } else {
      out[f.name] = value
    }
  }
  return out
}

export function textprotoToTrace(text: string): Uint8Array {
  return TraceType.encode(TraceType.fromObject(toObject(parseTextProto(text), TraceType))).finish()
}
