"use client";

import { useQueryStates } from "nuqs";
import { useTransition, type FormEvent } from "react";
import { TenantFilterField, ToolFilterField } from "@/components/records/filter-fields";
import { stuckSearchParams } from "@/components/stuck/stuck-search-params";

/** Tenant and tool, in the URL through the shared parsers; a change starts again at the newest claim. */
export function StuckFilterBar({ tools, tenantChoices }: { tools: string[]; tenantChoices: string[] | null }) {
  const [pending, startTransition] = useTransition();
  const [params, setParams] = useQueryStates(stuckSearchParams, { shallow: false, history: "push", startTransition });

  function apply(change: { tenant?: string | null; tool?: string | null }) {
    void setParams({ ...change, cursor: null, dir: null });
  }
  function submitTenant(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const tenant = String(new FormData(event.currentTarget).get("tenant") ?? "").trim();
    apply({ tenant: tenant || null });
  }

  return (
    <form onSubmit={submitTenant} aria-label="Filter stuck claims" data-pending={pending ? "true" : undefined} className="flex flex-wrap items-end gap-3">
      <TenantFilterField value={params.tenant} tenantChoices={tenantChoices} onChoose={(tenant) => apply({ tenant })} inputClassName="w-36" />
      <ToolFilterField value={params.tool} tools={tools} onChoose={(tool) => apply({ tool })} testId="stuck-tool-filter" />
      {tenantChoices === null ? (
        <button type="submit" className="rounded-md border border-slate-300 bg-white px-3 py-1 text-sm hover:bg-slate-100">
          Apply
        </button>
      ) : null}
      {params.tenant !== null || params.tool !== null ? (
        <button type="button" onClick={() => apply({ tenant: null, tool: null })} className="px-1 py-1 text-sm text-slate-600 underline">
          Clear
        </button>
      ) : null}
    </form>
  );
}
