/**
 * Named schemas: every schema with a `title` (TypeBox `{ title: 'Collection' }`) moves into
 * `components.schemas` and is referenced by `$ref`, so generated clients get named types
 * (`Collection`, `PlayLink`, …) instead of one anonymous type per operation.
 */

type Json = unknown;
type JsonObject = Record<string, Json>;

const isObject = (value: Json): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keys whose values are maps of schemas or of other things (not schemas themselves). */
const NOT_A_SCHEMA = new Set(['example', 'examples', 'default', 'const', 'enum']);

/**
 * Replaces titled schemas under `root` (deepest first) by `$ref`s and returns them by title.
 * Two different schemas with one title are a programming error: the document would lie about
 * one of them, so building it fails.
 */
export function hoistNamedSchemas(root: JsonObject, existing: Record<string, JsonObject> = {}): Record<string, JsonObject> {
  const named: Record<string, JsonObject> = { ...existing };
  const canonical = new Map<string, string>(Object.entries(named).map(([title, schema]) => [title, JSON.stringify(schema)]));

  const visit = (value: Json, insideSchema: boolean): Json => {
    if (Array.isArray(value)) return value.map((item) => visit(item, insideSchema));
    if (!isObject(value)) return value;
    const out: JsonObject = {};
    for (const [key, child] of Object.entries(value)) out[key] = NOT_A_SCHEMA.has(key) ? child : visit(child, true);
    const title = out.title;
    if (!insideSchema || typeof title !== 'string' || !looksLikeSchema(out)) return out;
    const text = JSON.stringify(out);
    const seen = canonical.get(title);
    if (seen === undefined) {
      canonical.set(title, text);
      named[title] = out;
    } else if (seen !== text) {
      throw new Error(`Two different schemas are titled "${title}"; give one of them another title.`);
    }
    return { $ref: `#/components/schemas/${title}` };
  };

  for (const [key, value] of Object.entries(root)) root[key] = visit(value, false);
  return named;
}

const SCHEMA_KEYWORDS = ['type', 'properties', 'items', 'anyOf', 'oneOf', 'allOf', '$ref', 'enum', 'const'];
const looksLikeSchema = (value: JsonObject) => SCHEMA_KEYWORDS.some((keyword) => keyword in value);
