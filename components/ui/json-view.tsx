import type { ReactNode } from "react";

const REDACTED = "[redacted]";

/**
 * A stored response, receipt or snapshot as indented, coloured JSON. Server-rendered, no
 * dependency: responses are small (a receipt, an error), and a tree widget would hide the
 * one field support needs behind clicks. Redacted values stand out so nobody reads them as data.
 * Long lines wrap inside the box (a URL, a token, a message): the whole value stays readable on a
 * phone and in a half-width panel, and the block never pushes its page wider.
 */
export function JsonView({ value, label }: { value: unknown; label?: string }) {
  return (
    // Focusable: a keyboard user can still scroll a block taller or wider than its box.
    <pre
      aria-label={label}
      tabIndex={0}
      className="max-w-full overflow-x-auto whitespace-pre-wrap break-words [overflow-wrap:anywhere] rounded-md border border-slate-200 bg-slate-50 p-3 font-mono text-xs leading-5 text-slate-800"
      data-testid="json-view"
    >
      {render(value, 0)}
    </pre>
  );
}

function render(value: unknown, depth: number): ReactNode {
  const pad = "  ".repeat(depth + 1);
  const close = "  ".repeat(depth);
  if (value === null || value === undefined) return <span className="text-slate-500">null</span>;
  if (typeof value === "string") {
    if (value === REDACTED)
      return (
        <span className="rounded bg-amber-100 px-1 text-amber-800" title="masked for every role">
          {REDACTED}
        </span>
      );
    return <span className="text-emerald-700">{JSON.stringify(value)}</span>;
  }
  if (typeof value === "number" || typeof value === "bigint")
    return <span className="text-sky-700">{String(value)}</span>;
  if (typeof value === "boolean") return <span className="text-violet-700">{String(value)}</span>;
  if (Array.isArray(value)) {
    if (value.length === 0) return "[]";
    return (
      <>
        {"[\n"}
        {value.map((item, i) => (
          <span key={i}>
            {pad}
            {render(item, depth + 1)}
            {i < value.length - 1 ? ",\n" : "\n"}
          </span>
        ))}
        {close}
        {"]"}
      </>
    );
  }
  if (typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>);
    if (entries.length === 0) return "{}";
    return (
      <>
        {"{\n"}
        {entries.map(([k, v], i) => (
          <span key={k}>
            {pad}
            <span className="text-slate-900">{JSON.stringify(k)}</span>
            {": "}
            {render(v, depth + 1)}
            {i < entries.length - 1 ? ",\n" : "\n"}
          </span>
        ))}
        {close}
        {"}"}
      </>
    );
  }
  return String(value);
}
