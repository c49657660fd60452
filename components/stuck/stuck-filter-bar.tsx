"use client";

import { useQueryStates } from "nuqs";
import { useTransition, type FormEvent } from "react";
import { UNRECORDED_TOOL } from "@/lib/records/list-filters";
import { stuckSearchParams } from "@/components/stuck/stuck-search-params";

const field = "rounded-md border border-slate-300 bg-white px-2 py-1 text-sm focus:border-slate-500 focus:outline-none";
const label = "flex flex-col gap-0.5 text-xs font-medium text-slate-600";

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
  const toolOptions = [...new Set([...tools, ...(params.tool && params.tool !== UNRECORDED_TOOL ? [params.tool] : [])])].sort();

  return (
    <form onSubmit={submitTenant} aria-label="Filter stuck claims" data-pending={pending ? "true" : undefined} className="flex flex-wrap items-end gap-3">
      <label className={label}>
        Tenant
        {tenantChoices === null ? (
          <input key={params.tenant ?? ""} name="tenant" defaultValue={params.tenant ?? ""} placeholder="any tenant" className={`${field} w-36`} />
        ) : (
          <select name="tenant" value={params.tenant ?? ""} onChange={(e) => apply({ tenant: e.target.value || null })} className={field}>
            <option value="">{tenantChoices.length > 1 ? "all my tenants" : tenantChoices[0]}</option>
            {tenantChoices.length > 1 ? tenantChoices.map((t) => <option key={t} value={t}>{t}</option>) : null}
          </select>
        )}
      </label>
      <label className={label}>
        Tool
        <select name="tool" value={params.tool ?? ""} onChange={(e) => apply({ tool: e.target.value || null })} className={field} data-testid="stuck-tool-filter">
          <option value="">any tool</option>
          {toolOptions.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
          <option value={UNRECORDED_TOOL}>unrecorded</option>
        </select>
      </label>
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
