"use client";

import type { FormEvent } from "react";
import { TenantFilterField, ToolFilterField } from "@/components/records/filter-fields";
import { stuckSearchParams } from "@/components/stuck/stuck-search-params";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FilterToolbar } from "@/components/ui/filter-toolbar";
import { refusedFieldProps } from "@/components/ui/query-problems";
import { Select } from "@/components/ui/select";
import { useListFilter } from "@/components/ui/use-list-filter";

/**
 * Tenant, tool and order, in the URL through the shared parsers; a change starts again at the first
 * page. Beside a refusal (`problemIds`: each refused parameter's reason id) the refused fields are
 * marked, and a change drops every refused parameter.
 */
export function StuckFilterBar({
  tools,
  tenantChoices,
  problemIds = {},
}: {
  tools: string[];
  tenantChoices: string[] | null;
  problemIds?: Partial<Record<string, string>>;
}) {
  const { params, pending, apply } = useListFilter(stuckSearchParams, Object.keys(problemIds));
  function submitTenant(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const tenant = String(new FormData(event.currentTarget).get("tenant") ?? "").trim();
    apply({ tenant: tenant || null });
  }

  return (
    <FilterToolbar onSubmit={submitTenant} aria-label="Filter stuck claims" data-pending={pending ? "true" : undefined}>
      <TenantFilterField
        value={params.tenant}
        tenantChoices={tenantChoices}
        onChoose={(tenant) => apply({ tenant })}
        inputClassName="w-36"
        problemIds={problemIds}
      />
      <ToolFilterField
        value={params.tool}
        tools={tools}
        onChoose={(tool) => apply({ tool })}
        testId="stuck-tool-filter"
        problemIds={problemIds}
      />
      <Field label="Order">
        <Select
          name="order"
          value={params.order}
          onChange={(e) => apply({ order: e.target.value === "newest" ? "newest" : "oldest" })}
          data-testid="stuck-order"
          {...refusedFieldProps(problemIds, "order")}
        >
          <option value="oldest">oldest first (most at risk)</option>
          <option value="newest">newest first</option>
        </Select>
      </Field>
      {tenantChoices === null ? (
        <Button variant="secondary" size="field" type="submit">
          Apply
        </Button>
      ) : null}
      {params.tenant !== null || params.tool !== null ? (
        <Button variant="link" size="md" className="px-1 py-1" onClick={() => apply({ tenant: null, tool: null })}>
          Clear
        </Button>
      ) : null}
    </FilterToolbar>
  );
}
