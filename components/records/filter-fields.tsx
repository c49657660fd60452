import { UNRECORDED_TOOL } from "@/lib/records/records-search-params";

/** The tenant, subject and tool fields the records list and the stuck page filter with (same URL rules, same controls). */

export const filterFieldClass = "rounded-md border border-slate-300 bg-white px-2 py-1 text-sm";
export const filterLabelClass = "flex flex-col gap-0.5 text-xs font-medium text-slate-600";

type TenantProps = {
  /** The URL's tenant. */
  value: string | null;
  /** A tenant-limited user picks among their tenants; others type a tenant name (submitted with the form). */
  tenantChoices: string[] | null;
  onChoose: (tenant: string | null) => void;
  inputClassName: string;
};

export function TenantFilterField({ value, tenantChoices, onChoose, inputClassName }: TenantProps) {
  return (
    <label className={filterLabelClass}>
      Tenant
      {tenantChoices === null ? (
        // Keyed on the URL value so the back button resets what is typed here.
        <input
          key={value ?? ""}
          name="tenant"
          defaultValue={value ?? ""}
          placeholder="any tenant"
          className={`${filterFieldClass} ${inputClassName}`}
        />
      ) : (
        <select
          name="tenant"
          value={value ?? ""}
          onChange={(e) => onChoose(e.target.value || null)}
          className={filterFieldClass}
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
        </select>
      )}
    </label>
  );
}

/**
 * The subject (the authenticated caller the writer recorded), typed and submitted with the form.
 * Matched exactly, so the hint says so: a part of a subject finds nothing.
 */
export function SubjectFilterField({ value }: { value: string | null }) {
  return (
    <label className={filterLabelClass}>
      Subject
      {/* Keyed on the URL value so the back button resets what is typed here. */}
      <input
        key={value ?? ""}
        name="subject"
        defaultValue={value ?? ""}
        placeholder="exact caller id"
        maxLength={200}
        autoComplete="off"
        spellCheck={false}
        data-testid="subject-filter"
        className={`${filterFieldClass} w-40 font-mono`}
      />
    </label>
  );
}

type ToolProps = {
  /** The URL's tool: a name, UNRECORDED_TOOL, or null for any. */
  value: string | null;
  /** Tool names worth offering; the URL's own is added. */
  tools: string[];
  onChoose: (tool: string | null) => void;
  testId?: string;
};

export function ToolFilterField({ value, tools, onChoose, testId }: ToolProps) {
  const options = [...new Set([...tools, ...(value && value !== UNRECORDED_TOOL ? [value] : [])])].sort();
  return (
    <label className={filterLabelClass}>
      Tool
      <select
        name="tool"
        value={value ?? ""}
        onChange={(e) => onChoose(e.target.value || null)}
        className={filterFieldClass}
        data-testid={testId}
      >
        <option value="">any tool</option>
        {options.map((t) => (
          <option key={t} value={t}>
            {t}
          </option>
        ))}
        <option value={UNRECORDED_TOOL}>unrecorded</option>
      </select>
    </label>
  );
}
