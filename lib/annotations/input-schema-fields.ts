/** One property of a tool's input schema, as the Verify dialog lists it. */
export type SchemaField = {
  name: string;
  /** "string", "integer", "string | null", "object"…; null when the schema does not say. */
  type: string | null;
  required: boolean;
  description: string | null;
  /** The allowed values when the schema lists them (enum or const), shown as JSON. */
  allowed: string[] | null;
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

function allowedOf(property: JsonObject): string[] | null {
  if (Array.isArray(property.enum)) return property.enum.map((v) => JSON.stringify(v));
  if (property.const !== undefined) return [JSON.stringify(property.const)];
  return null;
}

/**
 * The top-level properties of a JSON Schema object (required ones first, each group in the schema's
 * order). A schema this does not understand (no `properties`) has no fields: the dialog then shows
 * the schema as JSON only.
 */
export function schemaFields(schema: unknown): SchemaField[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === "string") : []);
  const fields = Object.entries(schema.properties).map(([name, raw]): SchemaField => {
    const property = isObject(raw) ? raw : {};
    return {
      name,
      type: typeOf(property),
      required: required.has(name),
      description: typeof property.description === "string" ? property.description : null,
      allowed: allowedOf(property),
    };
  });
  return [...fields.filter((f) => f.required), ...fields.filter((f) => !f.required)];
}

const PLACEHOLDER: Record<string, unknown> = {
  string: "",
  integer: 0,
  number: 0,
  boolean: false,
  array: [],
  object: {},
};

/**
 * The required fields with a value to start from: the schema's own default, first example, const or
 * first enum value, else an empty value of the field's type. A start to edit, never a call to run
 * as is: an empty string may well be refused (and a refused call changes no verdict).
 */
export function argumentsSkeleton(schema: unknown): JsonObject {
  if (!isObject(schema) || !isObject(schema.properties)) return {};
  const skeleton: JsonObject = {};
  for (const field of schemaFields(schema).filter((f) => f.required)) {
    const property = (isObject(schema.properties[field.name]) ? schema.properties[field.name] : {}) as JsonObject;
    const firstType = Array.isArray(property.type) ? property.type.find((t) => t !== "null") : property.type;
    skeleton[field.name] =
      property.default !== undefined
        ? property.default
        : Array.isArray(property.examples) && property.examples.length > 0
          ? property.examples[0]
          : property.const !== undefined
            ? property.const
            : Array.isArray(property.enum) && property.enum.length > 0
              ? property.enum[0]
              : typeof firstType === "string" && firstType in PLACEHOLDER
                ? PLACEHOLDER[firstType]
                : null;
  }
  return skeleton;
}
