"use client";

import type { FormEvent } from "react";
import { SubjectFilterField, TenantFilterField, ToolFilterField } from "@/components/records/filter-fields";
import { SearchFieldFilter } from "@/components/records/search-field-filter";
import { recordsSearchParams } from "@/lib/records/records-search-params";
import { formatInstant } from "@/lib/url-state/field-rules";
import { Button } from "@/components/ui/button";
import { Checkbox } from "@/components/ui/checkbox";
import { Field } from "@/components/ui/field";
import { FilterToolbar } from "@/components/ui/filter-toolbar";
import { FieldGroup } from "@/components/ui/field-group";
import { Input } from "@/components/ui/input";
import { refusedFieldProps } from "@/components/ui/query-problems";
import { Select } from "@/components/ui/select";
import { useListFilter } from "@/components/ui/use-list-filter";

type Props = {
  /** Tool names worth offering: configured tools and those counted for this filter. */
  tools: string[];
  /** Statuses worth offering: the two the protocol writes and any counted for this filter. */
  statuses: string[];
  /** A tenant-limited user picks among their tenants; others type a tenant name. */
  tenantChoices: string[] | null;
  /** Searchable response fields idem.config.json names (tools.<tool>.search). */
  searchLabels: string[];
  /** Beside a refusal: each refused parameter's reason id; those fields are marked, and a change drops them. */
  problemIds?: Partial<Record<string, string>>;
};

/** `2026-11-29T14:05:00Z` → the `datetime-local` value `2026-11-29T14:05` (the inputs are UTC). */
function toInputValue(date: Date | null): string {
  return date ? date.toISOString().slice(0, 16) : "";
}

function fromInputValue(value: string): Date | null {
  if (!value) return null;
  const date = new Date(`${value}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

/**
 * The filters, read from and written to the URL through the shared nuqs parsers. Each change
 * pushes a history entry (the back button restores the previous filter) and re-renders the
 * server page (shallow: false); every change drops the cursor — a position in the old filter.
 */
export function RecordsFilterBar({ tools, statuses, tenantChoices, searchLabels, problemIds = {} }: Props) {
  const { params, pending, apply } = useListFilter(recordsSearchParams, Object.keys(problemIds));

  function submitTyped(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    const tenant = String(data.get("tenant") ?? "").trim();
    const subject = String(data.get("subject") ?? "").trim();
    const fieldValue = String(data.get("fieldValue") ?? "").trim();
    const fieldLabel = String(data.get("fieldLabel") ?? "");
    apply({
      ...(tenantChoices === null ? { tenant: tenant || null } : {}),
      subject: subject || null,
      ...(searchLabels.length > 0
        ? { field: fieldValue && fieldLabel ? { label: fieldLabel, value: fieldValue } : null }
        : {}),
      from: fromInputValue(String(data.get("from") ?? "")),
      to: fromInputValue(String(data.get("to") ?? "")),
    });
  }

  const statusOptions = [
    ...new Set(["in_progress", "completed", ...statuses, ...(params.status ? [params.status] : [])]),
  ];
  const active =
    params.tenant !== null ||
    params.subject !== null ||
    params.tool !== null ||
    params.status !== null ||
    params.stuck ||
    params.field !== null ||
    params.from !== null ||
    params.to !== null;

  return (
    <FilterToolbar
      framed
      onSubmit={submitTyped}
      aria-label="Filter records"
      data-testid="records-filter-bar"
      data-pending={pending ? "true" : undefined}
    >
      <TenantFilterField
        value={params.tenant}
        tenantChoices={tenantChoices}
        onChoose={(tenant) => apply({ tenant })}
        inputClassName="w-32"
        problemIds={problemIds}
      />
      <SubjectFilterField value={params.subject} problemIds={problemIds} />
      <ToolFilterField value={params.tool} tools={tools} onChoose={(tool) => apply({ tool })} problemIds={problemIds} />
      <SearchFieldFilter value={params.field} labels={searchLabels} problemIds={problemIds} />
      <Field label="Status">
        <Select
          name="status"
          value={params.status ?? ""}
          onChange={(e) => apply({ status: e.target.value || null })}
          {...refusedFieldProps(problemIds, "status")}
        >
          <option value="">any status</option>
          {statusOptions.map((s) => (
            <option key={s} value={s}>
              {s}
            </option>
          ))}
        </Select>
      </Field>
      <label className="flex items-center gap-1.5 self-center pt-4 text-sm text-slate-700">
        <Checkbox
          name="stuck"
          checked={params.stuck}
          onChange={(e) => apply({ stuck: e.target.checked })}
          {...refusedFieldProps(problemIds, "stuck")}
        />
        Stuck only
      </label>
      <FieldGroup legend="Created (UTC)">
        <Input
          key={`from-${params.from ? formatInstant(params.from) : ""}`}
          type="datetime-local"
          name="from"
          aria-label="Created from (UTC)"
          defaultValue={toInputValue(params.from)}
          {...refusedFieldProps(problemIds, "from")}
        />
        <span className="pb-1.5 text-xs text-slate-500">to</span>
        <Input
          key={`to-${params.to ? formatInstant(params.to) : ""}`}
          type="datetime-local"
          name="to"
          aria-label="Created before (UTC)"
          defaultValue={toInputValue(params.to)}
          {...refusedFieldProps(problemIds, "to")}
        />
        <Button variant="primary" size="field" className="ml-1" type="submit">
          Apply
        </Button>
      </FieldGroup>
      {active ? (
        <Button
          variant="secondary"
          size="field"
          onClick={() =>
            apply({
              tenant: null,
              subject: null,
              tool: null,
              status: null,
              stuck: false,
              field: null,
              from: null,
              to: null,
            })
          }
        >
          Clear filters
        </Button>
      ) : null}
      <span aria-live="polite" className="ml-auto self-center text-xs text-slate-500">
        {pending ? "Loading…" : ""}
      </span>
    </FilterToolbar>
  );
}
