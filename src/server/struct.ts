import type { Struct } from '../generated/google/protobuf/Struct.js';
import type { Value } from '../generated/google/protobuf/Value.js';

/** A plain JSON-like object as a google.protobuf.Struct in proto-loader's object form. */
export function toStruct(object: Readonly<Record<string, unknown>>): Struct {
  const fields: Record<string, Value> = {};
  for (const [key, value] of Object.entries(object)) {
    if (value !== undefined) fields[key] = toValue(value);
  }
  return { fields };
}

function toValue(value: unknown): Value {
  if (value === null) return { nullValue: 'NULL_VALUE' };
  switch (typeof value) {
    case 'number':
      return { numberValue: value };
    case 'string':
      return { stringValue: value };
    case 'boolean':
      return { boolValue: value };
    case 'object':
      if (Array.isArray(value)) return { listValue: { values: value.map(toValue) } };
      return { structValue: toStruct(value as Record<string, unknown>) };
    default:
      return { stringValue: typeof value === 'bigint' || typeof value === 'symbol' ? value.toString() : '' };
  }
}
