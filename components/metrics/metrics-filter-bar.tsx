"use client";

import { useQueryStates } from "nuqs";
import { useTransition, type FormEvent } from "react";
import { METRICS_WINDOWS, metricsSearchParams, UNRECORDED_TOOL } from "@/lib/metrics/metrics-params";
import { Button } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FilterToolbarRow } from "@/components/ui/filter-toolbar";
import { Input } from "@/components/ui/input";
import { Select } from "@/components/ui/select";

type Props = {
  /** Tools worth offering: those in the window and the configured ones. */
  tools: string[];
  /** A tenant-limited user picks among their tenants; others type a tenant name. */
  tenantChoices: string[] | null;
};

/** Window, tool and tenant, in the URL through the shared nuqs parsers; each change re-renders the server page. */
export function MetricsFilterBar({ tools, tenantChoices }: Props) {
  const [pending, startTransition] = useTransition();
  const [params, setParams] = useQueryStates(metricsSearchParams, { shallow: false, history: "push", startTransition });
  const toolOptions = [
    ...new Set([...tools, ...(params.tool && params.tool !== UNRECORDED_TOOL ? [params.tool] : [])]),
  ].sort();

  function submitTenant(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const tenant = String(new FormData(event.currentTarget).get("tenant") ?? "").trim();
    void setParams({ tenant: tenant || null });
  }

  return (
    <FilterToolbarRow className="mb-4" aria-busy={pending}>
      <div role="group" aria-label="Window" className="inline-flex overflow-hidden rounded-md border border-slate-300">
        {METRICS_WINDOWS.map((w) => (
          <Button
            key={w}
            variant={params.window === w ? "primary" : "ghost"}
            className="rounded-none bg-white px-3 py-1 font-normal aria-pressed:bg-slate-900"
            aria-pressed={params.window === w}
            onClick={() => void setParams({ window: w })}
          >
            {w}
          </Button>
        ))}
      </div>
      <Field label="Tool">
        <Select
          value={params.tool ?? ""}
          onChange={(e) => void setParams({ tool: e.target.value || null })}
          name="tool"
        >
          <option value="">every tool</option>
          {toolOptions.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
          <option value={UNRECORDED_TOOL}>{UNRECORDED_TOOL}</option>
        </Select>
      </Field>
      {tenantChoices ? (
        <Field label="Tenant">
          <Select
            value={params.tenant ?? ""}
            onChange={(e) => void setParams({ tenant: e.target.value || null })}
            name="tenant"
          >
            <option value="">all my tenants</option>
            {tenantChoices.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </Select>
        </Field>
      ) : (
        <form onSubmit={submitTenant} className="flex items-end gap-2" key={params.tenant ?? ""}>
          <Field label="Tenant">
            <Input name="tenant" defaultValue={params.tenant ?? ""} placeholder="every tenant" />
          </Field>
          <Button variant="secondary" size="field" type="submit">
            Apply
          </Button>
        </form>
      )}
      {params.tool !== null || params.tenant !== null ? (
        <Button variant="link" size="md" onClick={() => void setParams({ tool: null, tenant: null })}>
          Clear filters
        </Button>
      ) : null}
      {pending ? <span className="text-xs text-slate-500">loading…</span> : null}
    </FilterToolbarRow>
  );
}
