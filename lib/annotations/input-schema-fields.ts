/** One property of a tool's input schema, as the Verify dialog lists it. */
export type SchemaField = {
  name: string;
  /** "string", "integer", "string | null", "object"…; null when the schema does not say. */
  type: string | null;
  required: boolean;
  description: string | null;
  /** The allowed values when the schema lists them (enum or const), shown as JSON. */
  allowed: string[] | null;
  /** Limits a value must keep, in words: "at least 1 character", "> 0", "≤ 100000000", "format email". */
  constraints: string[];
};

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function typeOf(property: JsonObject): string | null {
  const type = property.type;
  if (typeof type === "string") return type;
  if (Array.isArray(type) && type.every((t) => typeof t === "string")) return type.join(" | ");
  if (property.const !== undefined) return "const";
  return null;
}

function constraintsOf(property: JsonObject): string[] {
  const n = (key: string) => (typeof property[key] === "number" ? (property[key] as number) : null);
  const out: string[] = [];
  const minLength = n("minLength");
  const maxLength = n("maxLength");
  if (minLength !== null && minLength > 0) out.push(`at least ${minLength} character${minLength === 1 ? "" : "s"}`);
  if (maxLength !== null) out.push(`at most ${maxLength} characters`);
  if (n("exclusiveMinimum") !== null) out.push(`> ${n("exclusiveMinimum")}`);
  if (n("minimum") !== null) out.push(`≥ ${n("minimum")}`);
  if (n("exclusiveMaximum") !== null) out.push(`< ${n("exclusiveMaximum")}`);
  if (n("maximum") !== null) out.push(`≤ ${n("maximum")}`);
  if (typeof property.format === "string") out.push(`format ${property.format}`);
  if (typeof property.pattern === "string") out.push(`matching ${property.pattern}`);
  return out;
}

function allowedOf(property: JsonObject): string[] | null {
  if (Array.isArray(property.enum)) return property.enum.map((v) => JSON.stringify(v));
  if (property.const !== undefined) return [JSON.stringify(property.const)];
  return null;
}

/**
 * The top-level properties of a JSON Schema object: the required ones first in the order of the
 * schema's `required` list (an array keeps its order; stored as jsonb, `properties` comes back
 * sorted by key length), then the others. A schema this does not understand (no `properties`) has no fields: the dialog then shows
 * the schema as JSON only.
 */
export function schemaFields(schema: unknown): SchemaField[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const requiredList: string[] = Array.isArray(schema.required)
    ? schema.required.filter((r): r is string => typeof r === "string")
    : [];
  const required = new Set(requiredList);
  const fields = Object.entries(schema.properties).map(([name, raw]): SchemaField => {
    const property = isObject(raw) ? raw : {};
    return {
      name,
      type: typeOf(property),
      required: required.has(name),
      description: typeof property.description === "string" ? property.description : null,
      allowed: allowedOf(property),
      constraints: constraintsOf(property),
    };
  });
  const rank = (f: SchemaField) => requiredList.indexOf(f.name);
  return [...fields.filter((f) => f.required).sort((a, b) => rank(a) - rank(b)), ...fields.filter((f) => !f.required)];
}

const EMPTY: Record<string, unknown> = { boolean: false, array: [], object: {} };

/** Formats a placeholder string can take as written: what a JSON Schema validator checks them by. */
const FORMAT_SAMPLES: Record<string, string> = {
  email: "someone@example.com",
  uri: "https://example.com/",
  url: "https://example.com/",
  uuid: "00000000-0000-4000-8000-000000000000",
  date: "2026-01-01",
  "date-time": "2026-01-01T00:00:00Z",
};

const num = (property: JsonObject, key: string) =>
  typeof property[key] === "number" ? (property[key] as number) : null;

/** Whether a string keeps the property's length and pattern limits (a pattern this engine cannot read: unknown, so no). */
function stringFits(property: JsonObject, value: string): boolean {
  const min = num(property, "minLength") ?? 0;
  const max = num(property, "maxLength");
  if ([...value].length < min || (max !== null && [...value].length > max)) return false;
  if (typeof property.pattern !== "string") return true;
  try {
    return new RegExp(property.pattern, "u").test(value);
  } catch {
    return false;
  }
}

/**
 * A value of the field's type that keeps the limits the dialog lists for it (a placeholder the schema shown
 * refuses would make the run test nothing): for a string, the example its description gives ("card token,
 * e.g. c_71"), a sample of its format, or as many characters as its minimum length; for a number, the least
 * it allows. Null when none is found (a pattern to match): the field stays empty, and is named.
 */
function placeholderOf(property: JsonObject, type: string | undefined): unknown {
  if (type === "string") {
    const described =
      typeof property.description === "string"
        ? /\be\.g\.,?\s+["'`]?([^\s"'`,;)]+)/i.exec(property.description)?.[1]
        : undefined;
    const format = typeof property.format === "string" ? FORMAT_SAMPLES[property.format] : undefined;
    const min = Math.max(num(property, "minLength") ?? 0, 0);
    const candidates = [described, format, "", "x".repeat(Math.max(min, 1))].filter(
      (c): c is string => c !== undefined,
    );
    return candidates.find((c) => stringFits(property, c)) ?? "";
  }
  if (type === "integer" || type === "number") {
    const minimum = num(property, "minimum");
    const exclusive = num(property, "exclusiveMinimum");
    const maximum = num(property, "maximum");
    const exclusiveMax = num(property, "exclusiveMaximum");
    const step = type === "integer" ? 1 : 0.5;
    let low: number | null = minimum;
    if (exclusive !== null) {
      const above = type === "integer" ? Math.floor(exclusive) + 1 : exclusive + step;
      low = low === null ? above : Math.max(low, above);
    }
    if (type === "integer" && low !== null) low = Math.ceil(low);
    let value = low ?? 0;
    const multiple = num(property, "multipleOf");
    if (multiple !== null && multiple > 0) value = Math.ceil(value / multiple) * multiple;
    // No lower limit: 0, unless the upper one keeps it out.
    const high = exclusiveMax !== null ? exclusiveMax - step : maximum;
    if (low === null && high !== null && value > high) value = type === "integer" ? Math.floor(high) : high;
    return value;
  }
  return typeof type === "string" && type in EMPTY ? EMPTY[type] : null;
}

/**
 * The required fields with a value to start from: the schema's own default, first example, const or
 * first enum value, else a placeholder that keeps the field's limits (placeholderOf) — named in
 * `placeholders`, for the person to replace with values of theirs: every call is real.
 */
export function argumentsSkeleton(schema: unknown): { args: JsonObject; placeholders: string[] } {
  if (!isObject(schema) || !isObject(schema.properties)) return { args: {}, placeholders: [] };
  const skeleton: JsonObject = {};
  const placeholders: string[] = [];
  for (const field of schemaFields(schema).filter((f) => f.required)) {
    const property = (isObject(schema.properties[field.name]) ? schema.properties[field.name] : {}) as JsonObject;
    const firstType = Array.isArray(property.type) ? property.type.find((t) => t !== "null") : property.type;
    const own =
      property.default !== undefined ||
      (Array.isArray(property.examples) && property.examples.length > 0) ||
      property.const !== undefined ||
      (Array.isArray(property.enum) && property.enum.length > 0);
    if (!own) placeholders.push(field.name);
    skeleton[field.name] =
      property.default !== undefined
        ? property.default
        : Array.isArray(property.examples) && property.examples.length > 0
          ? property.examples[0]
          : property.const !== undefined
            ? property.const
            : Array.isArray(property.enum) && property.enum.length > 0
              ? property.enum[0]
              : placeholderOf(property, typeof firstType === "string" ? firstType : undefined);
  }
  return { args: skeleton, placeholders };
}
