import type { ReactNode } from "react";
import { Button } from "@/components/ui/button";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";
import { Textarea } from "@/components/ui/textarea";

export type ExplainFormValues = Partial<
  Record<"tenant" | "subject" | "tool" | "args" | "at" | "window" | "scheme" | "compare", string>
>;

/** The form's fields in page order, and the hint shown under (and describing) those that have one. */
const FIELD_ORDER = ["tenant", "subject", "tool", "at", "window", "scheme", "args", "compare"] as const;
type FieldName = (typeof FIELD_ORDER)[number];
const HINTS: Partial<Record<FieldName, string>> = {
  subject: "empty: hashed as None",
  at: "ISO 8601 with a zone (Z for UTC) or unix seconds; empty: now",
  window: "seconds, or 15m",
  compare: "a second argument text: why do their keys differ?",
};

// Over the field look: this form's wider padding and its face.
const INPUT = "block h-auto w-full bg-transparent px-2.5 py-1.5";

/**
 * A plain GET form: the explanation is a URL, so support can paste it into a ticket and an
 * engineer sees the same thing. Works without JavaScript.
 */
export function ExplainForm({ values, errors }: { values: ExplainFormValues; errors: Record<string, string> }) {
  // Each control names its hint and its error as its description, says when it is invalid, and the
  // first invalid one takes focus when the page comes back with errors (the form is a plain GET).
  const firstInvalid = FIELD_ORDER.find((name) => errors[name]);
  const field = (name: FieldName) => {
    const described = [HINTS[name] ? `${name}-hint` : null, errors[name] ? `${name}-error` : null].filter(Boolean);
    return {
      id: name,
      name,
      "aria-describedby": described.length > 0 ? described.join(" ") : undefined,
      "aria-invalid": errors[name] ? true : undefined,
      autoFocus: name === firstInvalid,
    };
  };
  return (
    <form
      method="get"
      action="/keys"
      className="rounded-lg border border-slate-200 bg-white p-4"
      aria-label="Explain a key"
    >
      <div className="grid grid-cols-1 gap-3 md:grid-cols-3">
        <Labelled name="tenant" label="Tenant" error={errors.tenant}>
          <Input
            {...field("tenant")}
            defaultValue={values.tenant}
            required
            maxLength={200}
            className={INPUT}
            placeholder="acme"
          />
        </Labelled>
        <Labelled name="subject" label="Subject" error={errors.subject}>
          <Input
            {...field("subject")}
            defaultValue={values.subject}
            maxLength={200}
            className={INPUT}
            placeholder="user_1"
          />
        </Labelled>
        <Labelled name="tool" label="Tool" error={errors.tool}>
          <Input
            {...field("tool")}
            defaultValue={values.tool}
            required
            maxLength={100}
            className={`${INPUT} font-mono`}
            placeholder="charge_card"
          />
        </Labelled>
        <Labelled name="at" label="Time of the call" error={errors.at}>
          <Input
            {...field("at")}
            defaultValue={values.at}
            className={`${INPUT} font-mono`}
            placeholder="2026-03-01T12:00:00Z"
          />
        </Labelled>
        <Labelled name="window" label="Window" error={errors.window}>
          <Input {...field("window")} defaultValue={values.window ?? "900"} className={`${INPUT} font-mono`} />
        </Labelled>
        <Labelled name="scheme" label="Canonical form" error={errors.scheme}>
          <Select {...field("scheme")} defaultValue={values.scheme ?? "python-json"} className={INPUT}>
            <option value="python-json">python-json (json.dumps, sort_keys)</option>
            <option value="jcs">jcs (RFC 8785)</option>
          </Select>
        </Labelled>
      </div>
      <div className="mt-3 grid grid-cols-1 gap-3 md:grid-cols-2">
        <Labelled name="args" label="Arguments (JSON text)" error={errors.args}>
          <Textarea
            {...field("args")}
            defaultValue={values.args}
            required
            rows={4}
            maxLength={10_000}
            className={`${INPUT} font-mono`}
            placeholder='{"amount_cents": 24000, "card": "c_71"}'
          />
        </Labelled>
        <Labelled name="compare" label="Compare with (optional)" error={errors.compare}>
          <Textarea
            {...field("compare")}
            defaultValue={values.compare}
            rows={4}
            maxLength={10_000}
            className={`${INPUT} font-mono`}
            placeholder='{"card": "c_71", "amount_cents": 24000}'
          />
        </Labelled>
      </div>
      <Button variant="primary" size="md" className="mt-3" type="submit">
        Explain
      </Button>
    </form>
  );
}

function Labelled({
  name,
  label,
  error,
  children,
}: {
  name: FieldName;
  label: string;
  error?: string;
  children: ReactNode;
}) {
  const hint = HINTS[name];
  return (
    <div>
      <label htmlFor={name} className="mb-1 block text-xs font-medium text-slate-700">
        {label}
      </label>
      {children}
      {/* Under the control, not in the label: a long hint wrapped its label and set its field lower than the row's. */}
      {hint ? (
        <p id={`${name}-hint`} className="mt-1 text-xs text-slate-500">
          {hint}
        </p>
      ) : null}
      {error ? (
        <p id={`${name}-error`} role="alert" className="mt-1 text-xs text-red-700" data-testid={`error-${name}`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}
