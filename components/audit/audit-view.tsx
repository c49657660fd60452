import { Link } from "@/components/ui/link";
import { AuditFilterForm, type AuditFilterValues } from "@/components/audit/audit-filter-form";
import { AuditTable } from "@/components/audit/audit-table";
import { KeysetPager } from "@/components/ui/keyset-pager";
import type { AuditPage } from "@/lib/audit/list-audit";
import { Card } from "@/components/ui/card";

type Props = {
  page: AuditPage;
  values: AuditFilterValues;
  actions: string[];
  tenantChoices: string[] | null;
  links: { newest: string; older: string | null };
  atNewest: boolean;
  filtered: boolean;
};

/** The audit page below its header: the filter form, the entries, the pager. */
export function AuditView({ page, values, actions, tenantChoices, links, atNewest, filtered }: Props) {
  const shown = page.entries.length;
  return (
    <>
      <AuditFilterForm values={values} actions={actions} tenantChoices={tenantChoices} />
      {values.id ? (
        <p className="mb-3 text-sm text-slate-700" data-testid="audit-one-entry">
          Audit entry #{values.id} only.{" "}
          <Link href="/audit" className="underline">
            Show the newest entries
          </Link>
        </p>
      ) : null}
      {page.entries.length > 0 ? (
        <AuditTable entries={page.entries} now={page.generatedAt} />
      ) : (
        <Card className="p-8 text-center" data-testid="audit-empty">
          <p className="text-sm font-medium text-slate-800">
            {!atNewest
              ? "No older entries."
              : filtered
                ? "No audit entries match this filter."
                : "No audit entries you can see yet."}
          </p>
          <p className="mt-1 text-sm text-slate-500">
            {filtered || !atNewest ? (
              <Link href="/audit" className="underline">
                Show the newest entries
              </Link>
            ) : (
              "Every change the console makes — completions, releases, trims, users, tokens — writes one entry here."
            )}
          </p>
        </Card>
      )}
      <KeysetPager
        newest={atNewest ? null : links.newest}
        older={links.older}
        summary={`${shown.toLocaleString("en")} entr${shown === 1 ? "y" : "ies"} on this page${atNewest ? ", starting at the newest" : ""}`}
        testId="audit-pager"
      />
    </>
  );
}
