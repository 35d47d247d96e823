// Request fields Chat Completions and Responses spell alike but nest differently: each adapter
// wraps these in its own envelope.
import type { IrResponseFormat, IrTool, Json } from './ir';

/** A function tool's name, description (when it has one) and parameters schema. */
export function functionFields(t: IrTool): Json {
  return {
    name: t.name,
    ...(t.description !== null ? { description: t.description } : {}),
    parameters: t.parameters,
  };
}

/** A JSON-schema response format's name, schema and strictness (when set). */
export function jsonSchemaFields(rf: Extract<IrResponseFormat, { type: 'json_schema' }>): Json {
  return {
    name: rf.name,
    schema: rf.schema,
    ...(rf.strict !== null ? { strict: rf.strict } : {}),
  };
}
