"use client";

import { useQueryStates } from "nuqs";
import { useTransition, type FormEvent } from "react";
import { auditHref, auditSearchParams } from "@/lib/audit/audit-search-params";
import { Button, buttonClass } from "@/components/ui/button";
import { Field } from "@/components/ui/field";
import { FilterToolbar } from "@/components/ui/filter-toolbar";
import { Input } from "@/components/ui/input";
import { refusedFieldProps } from "@/components/ui/query-problems";
import { Select } from "@/components/ui/select";

/** The filter values as they appear in the URL ("" for none). */
export type AuditFilterValues = {
  id: string;
  actor: string;
  action: string;
  key: string;
  tenant: string;
  from: string;
  to: string;
  limit: string;
};

type Props = {
  values: AuditFilterValues;
  /** Actions seen in the entries this reader may see: suggestions for the action field. */
  actions: string[];
  /** A tenant-limited reader picks among their tenants; others type a tenant. */
  tenantChoices: string[] | null;
  /** The fields the link's refusal names, each with the id of the words saying why (components/ui/query-problems). */
  problemIds?: Partial<Record<string, string>>;
};

const FIELDS = ["actor", "action", "key", "tenant", "from", "to"] as const;

/**
 * The filters, written to the URL through the audit page's nuqs parsers, so the filtered view is
 * a URL to share; the server page validates them. Without JavaScript the same form is a plain GET
 * to /audit. Paging restarts at the newest entry on every submit.
 */
export function AuditFilterForm({ values, actions, tenantChoices, problemIds = {} }: Props) {
  const [pending, startTransition] = useTransition();
  const [, setParams] = useQueryStates(auditSearchParams, { shallow: false, history: "push", startTransition });
  const active = values.id || values.actor || values.action || values.key || values.tenant || values.from || values.to;

  const marked = (name: (typeof FIELDS)[number], className?: string) => refusedFieldProps(problemIds, name, className);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const typed = Object.fromEntries(FIELDS.map((name) => [name, String(form.get(name) ?? "").trim() || null]));
    // A new filter leaves the one-entry view a confirmation linked to.
    void setParams({ ...typed, id: null, cursor: null, limit: values.limit ? Number(values.limit) : null });
  }

  return (
    <FilterToolbar
      framed
      method="get"
      action="/audit"
      onSubmit={submit}
      aria-label="Filter the audit log"
      aria-busy={pending}
      data-testid="audit-filter-form"
    >
      <Field label="Actor">
        <Input name="actor" defaultValue={values.actor} placeholder="system: or omar@" {...marked("actor", "w-40")} />
      </Field>
      <Field label="Action">
        {/* w-52: the longest action, record.force_release, fits in monospace (w-48 cut its last letter). */}
        <Input
          name="action"
          defaultValue={values.action}
          list="audit-actions"
          placeholder="any action"
          {...marked("action", "w-52 font-mono")}
        />
        <datalist id="audit-actions">
          {actions.map((a) => (
            <option key={a} value={a} />
          ))}
        </datalist>
      </Field>
      <Field label="Key or ref">
        <Input
          name="key"
          defaultValue={values.key}
          placeholder="3f9a1c2b7d4e…"
          spellCheck={false}
          {...marked("key", "w-40 font-mono")}
        />
      </Field>
      <Field label="Tenant">
        {tenantChoices === null ? (
          <Input name="tenant" defaultValue={values.tenant} placeholder="any tenant" {...marked("tenant", "w-32")} />
        ) : (
          <Select name="tenant" defaultValue={values.tenant} {...marked("tenant", "")}>
            <option value="">{tenantChoices.length > 1 ? "all my tenants" : tenantChoices[0]}</option>
            {tenantChoices.length > 1
              ? tenantChoices.map((t) => (
                  <option key={t} value={t}>
                    {t}
                  </option>
                ))
              : null}
            {/* Never "all my tenants" while the URL names another (the page shows its notice instead). */}
            {values.tenant && !tenantChoices.includes(values.tenant) ? (
              <option value={values.tenant}>{values.tenant}</option>
            ) : null}
          </Select>
        )}
      </Field>
      <Field label="From (UTC)">
        <Input name="from" defaultValue={values.from} placeholder="2026-11-29" {...marked("from", "w-44")} />
      </Field>
      <Field label="Before (UTC)">
        <Input name="to" defaultValue={values.to} placeholder="2026-11-29T14:05Z" {...marked("to", "w-44")} />
      </Field>
      <Input type="hidden" name="limit" value={values.limit} />
      <Button variant="primary" size="field" type="submit">
        Apply
      </Button>
      {active ? (
        <a
          href={auditHref({ limit: values.limit })}
          className={buttonClass({ variant: "secondary", size: "field", className: "font-normal" })}
        >
          Clear filters
        </a>
      ) : null}
    </FilterToolbar>
  );
}
