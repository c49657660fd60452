import { UNRECORDED_TOOL } from "@/lib/records/records-search-params";
import { Field } from "@/components/ui/field";
import { Input } from "@/components/ui/input";
import { refusedFieldProps } from "@/components/ui/query-problems";
import { Select } from "@/components/ui/select";

/** The tenant, subject and tool fields the records list and the stuck page filter with (same URL rules, same controls). */

type TenantProps = {
  /** The URL's tenant. */
  value: string | null;
  /** A tenant-limited user picks among their tenants; others type a tenant name (submitted with the form). */
  tenantChoices: string[] | null;
  onChoose: (tenant: string | null) => void;
  inputClassName: string;
  /** Beside a refusal: each refused parameter's reason id (components/ui/query-problems). */
  problemIds?: Partial<Record<string, string>>;
};

export function TenantFilterField({ value, tenantChoices, onChoose, inputClassName, problemIds = {} }: TenantProps) {
  return (
    <Field label="Tenant">
      {tenantChoices === null ? (
        // Keyed on the URL value so the back button resets what is typed here.
        <Input
          key={value ?? ""}
          name="tenant"
          defaultValue={value ?? ""}
          placeholder="any tenant"
          {...refusedFieldProps(problemIds, "tenant", inputClassName)}
        />
      ) : (
        <Select
          name="tenant"
          value={value ?? ""}
          onChange={(e) => onChoose(e.target.value || null)}
          {...refusedFieldProps(problemIds, "tenant")}
        >
          <option value="">{tenantChoices.length > 1 ? "all my tenants" : tenantChoices[0]}</option>
          {tenantChoices.length > 1
            ? tenantChoices.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))
            : null}
          {/* The page answers a tenant outside the list with its notice; should one get here, show it rather than "all my tenants". */}
          {value !== null && !tenantChoices.includes(value) ? <option value={value}>{value}</option> : null}
        </Select>
      )}
    </Field>
  );
}

/**
 * The subject (the authenticated caller the writer recorded), typed and submitted with the form.
 * Matched exactly, so the hint says so: a part of a subject finds nothing.
 */
export function SubjectFilterField({
  value,
  problemIds = {},
}: {
  value: string | null;
  problemIds?: Partial<Record<string, string>>;
}) {
  return (
    <Field label="Subject">
      {/* Keyed on the URL value so the back button resets what is typed here. */}
      <Input
        key={value ?? ""}
        name="subject"
        defaultValue={value ?? ""}
        placeholder="exact caller id"
        maxLength={200}
        autoComplete="off"
        spellCheck={false}
        data-testid="subject-filter"
        {...refusedFieldProps(problemIds, "subject", "w-40 font-mono")}
      />
    </Field>
  );
}

type ToolProps = {
  /** The URL's tool: a name, UNRECORDED_TOOL, or null for any. */
  value: string | null;
  /** Tool names worth offering; the URL's own is added. */
  tools: string[];
  onChoose: (tool: string | null) => void;
  testId?: string;
  problemIds?: Partial<Record<string, string>>;
};

export function ToolFilterField({ value, tools, onChoose, testId, problemIds = {} }: ToolProps) {
  const options = [...new Set([...tools, ...(value && value !== UNRECORDED_TOOL ? [value] : [])])].sort();
  return (
    <Field label="Tool">
      <Select
        name="tool"
        value={value ?? ""}
        onChange={(e) => onChoose(e.target.value || null)}
        data-testid={testId}
        {...refusedFieldProps(problemIds, "tool")}
      >
        <option value="">any tool</option>
        {options.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
        <option value={UNRECORDED_TOOL}>unrecorded</option>
      </Select>
    </Field>
  );
}
