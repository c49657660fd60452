import { buttonClass } from "@/components/ui/button";
import { DUPLICATES_WINDOWS, duplicatesHref, type DuplicatesWindow } from "@/lib/duplicates/duplicates-params";

type Props = {
  values: { window: DuplicatesWindow; tool: string | null; tenant: string | null };
  /** Tools worth offering: those with figures and those the console knows of. */
  tools: string[];
  /** A tenant-limited reader picks among their tenants; others type a tenant. */
  tenantChoices: string[] | null;
};

const field = "rounded-md border border-slate-300 bg-white px-2 py-1 text-sm";
const label = "flex flex-col gap-0.5 text-xs font-medium text-slate-600";

const WINDOW_LABEL: Record<DuplicatesWindow, string> = {
  "1h": "last hour",
  "24h": "last 24 hours",
  "48h": "last 48 hours",
};

/**
 * Window, tool and tenant as a plain GET form to /duplicates: the filtered view is its URL, and it
 * works without JavaScript. Paging restarts at the newest duplicate on every submit (no cursor).
 */
export function DuplicatesFilterForm({ values, tools, tenantChoices }: Props) {
  const toolOptions = [...new Set([...tools, ...(values.tool ? [values.tool] : [])])].sort();
  return (
    <form
      method="get"
      action="/duplicates"
      aria-label="Filter the duplicates"
      data-testid="duplicates-filter-form"
      className="mb-4 flex flex-wrap items-end gap-3 rounded-lg border border-slate-200 bg-white p-3"
    >
      <label className={label}>
        Window
        <select name="window" defaultValue={values.window} className={field}>
          {DUPLICATES_WINDOWS.map((w) => (
            <option key={w} value={w}>
              {WINDOW_LABEL[w]}
            </option>
          ))}
        </select>
      </label>
      <label className={label}>
        Tool
        <select name="tool" defaultValue={values.tool ?? ""} className={`${field} font-mono`}>
          <option value="">every tool</option>
          {toolOptions.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
      </label>
      <label className={label}>
        Tenant
        {tenantChoices === null ? (
          <input
            name="tenant"
            defaultValue={values.tenant ?? ""}
            placeholder="every tenant"
            className={`${field} w-36`}
          />
        ) : (
          <select name="tenant" defaultValue={values.tenant ?? ""} className={field}>
            <option value="">{tenantChoices.length > 1 ? "all my tenants" : tenantChoices[0]}</option>
            {tenantChoices.length > 1
              ? tenantChoices.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))
              : null}
          </select>
        )}
      </label>
      <button type="submit" className={buttonClass({ variant: "primary" })}>
        Apply
      </button>
      {values.tool || values.tenant ? (
        <a
          href={duplicatesHref({ window: values.window })}
          className={buttonClass({ variant: "secondary", className: "font-normal" })}
        >
          Clear filters
        </a>
      ) : null}
    </form>
  );
}
