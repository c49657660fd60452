import { schemaFields } from "@/lib/annotations/input-schema-fields";
import { JsonView } from "@/components/ui/json-view";
import { Button } from "@/components/ui/button";

/**
 * What the tool asks for, from its latest listing: the top-level fields (required first) and the
 * whole schema under a disclosure, with a way to start the arguments from the required fields.
 */
export function InputSchemaPanel({
  tool,
  schema,
  onFill,
  placeholders,
}: {
  tool: string;
  schema: Record<string, unknown> | null;
  onFill: () => void;
  /** After a fill: the fields that got a placeholder (a value that only fits the schema), to replace before running. */
  placeholders: string[] | null;
}) {
  if (!schema)
    return (
      <p className="text-xs text-slate-500" data-testid="verify-schema-none">
        The latest listing sent no input schema for {tool}.
      </p>
    );
  const fields = schemaFields(schema);
  return (
    <section className="rounded-md border border-slate-200 p-2 text-xs" data-testid="verify-schema">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3 className="font-medium text-slate-700">Input schema (from the latest listing)</h3>
        {fields.some((f) => f.required) ? (
          <Button size="xs" type="button" onClick={onFill} data-testid="verify-fill">
            Start from the required fields
          </Button>
        ) : null}
      </div>
      {fields.length > 0 ? (
        <ul className="mt-1 space-y-0.5">
          {fields.map((field) => (
            <li key={field.name} className="[overflow-wrap:anywhere]" data-testid="verify-schema-field">
              <span className="font-mono text-slate-900">{field.name}</span>{" "}
              <span className="text-slate-500">
                {field.type ?? "any"}
                {field.required ? ", required" : ", optional"}
                {field.allowed ? `, one of ${field.allowed.join(", ")}` : ""}
                {field.constraints.length > 0 ? `, ${field.constraints.join(", ")}` : ""}
              </span>
              {field.description ? <span className="text-slate-600"> — {field.description}</span> : null}
            </li>
          ))}
        </ul>
      ) : null}
      {placeholders && placeholders.length > 0 ? (
        <p className="mt-1 text-amber-800" data-testid="verify-placeholders">
          Replace the placeholder{placeholders.length === 1 ? "" : "s"} of {placeholders.join(", ")} with values of
          yours before running: {placeholders.length === 1 ? "it only fits" : "they only fit"} the schema above, and
          every call is real.
        </p>
      ) : null}
      <details className="mt-1">
        <summary className="cursor-pointer text-slate-600">The whole schema</summary>
        <div className="mt-1">
          <JsonView value={schema} label={`input schema of ${tool}`} />
        </div>
      </details>
    </section>
  );
}
