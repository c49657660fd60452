import { Button, buttonClass } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FilterToolbar } from "@/components/ui/filter-toolbar";
import { Input } from "@/components/ui/input";
import { refusedFieldProps } from "@/components/ui/query-problems";
import { Select } from "@/components/ui/select";
import { DUPLICATES_WINDOWS, duplicatesHref, type DuplicatesWindow } from "@/lib/duplicates/duplicates-params";

type Props = {
  values: { window: DuplicatesWindow; tool: string | null; tenant: string | null };
  /** Tools worth offering: those with figures and those the console knows of. */
  tools: string[];
  /** A tenant-limited reader picks among their tenants; others type a tenant. */
  tenantChoices: string[] | null;
  /** The fields the link's refusal names, each with the id of the words saying why (components/ui/query-problems). */
  problemIds?: Partial<Record<string, string>>;
};

const WINDOW_LABEL: Record<DuplicatesWindow, string> = {
  "1h": "last hour",
  "24h": "last 24 hours",
  "48h": "last 48 hours",
};

/**
 * Window, tool and tenant as a plain GET form to /duplicates: the filtered view is its URL, and it
 * works without JavaScript. Paging restarts at the newest duplicate on every submit (no cursor).
 */
export function DuplicatesFilterForm({ values, tools, tenantChoices, problemIds = {} }: Props) {
  const toolOptions = [...new Set([...tools, ...(values.tool ? [values.tool] : [])])].sort();
  const marked = (name: "window" | "tool" | "tenant", className?: string) =>
    refusedFieldProps(problemIds, name, className);
  return (
    <FilterToolbar
      framed
      method="get"
      action="/duplicates"
      aria-label="Filter the duplicates"
      data-testid="duplicates-filter-form"
    >
      <Field label="Window">
        <Select name="window" defaultValue={values.window} {...marked("window")}>
          {DUPLICATES_WINDOWS.map((w) => (
            <option key={w} value={w}>
              {WINDOW_LABEL[w]}
            </option>
          ))}
        </Select>
      </Field>
      <Field label="Tool">
        <Select name="tool" defaultValue={values.tool ?? ""} {...marked("tool", "font-mono")}>
          <option value="">every tool</option>
          {toolOptions.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </Select>
      </Field>
      <Field label="Tenant">
        {tenantChoices === null ? (
          <Input
            name="tenant"
            defaultValue={values.tenant ?? ""}
            placeholder="every tenant"
            {...marked("tenant", "w-36")}
          />
        ) : (
          <Select name="tenant" defaultValue={values.tenant ?? ""} {...marked("tenant")}>
            <option value="">{tenantChoices.length > 1 ? "all my tenants" : tenantChoices[0]}</option>
            {tenantChoices.length > 1
              ? tenantChoices.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))
              : null}
          </Select>
        )}
      </Field>
      <Button variant="primary" size="field" type="submit">
        Apply
      </Button>
      {values.tool || values.tenant ? (
        <a
          href={duplicatesHref({ window: values.window })}
          className={buttonClass({ variant: "secondary", size: "field", className: "font-normal" })}
        >
          Clear filters
        </a>
      ) : null}
    </FilterToolbar>
  );
}
