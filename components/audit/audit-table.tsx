import { AuditEntryRow } from "@/components/audit/audit-entry-row";
import type { AuditEntryView } from "@/lib/audit/list-audit";

const HEADERS = ["Time", "Actor", "Role", "Action", "Record", "Tenant", "Reason", ""];

/** The audit entries of one page, newest first; `now` comes from the server so both renders agree on ages. */
export function AuditTable({ entries, now }: { entries: AuditEntryView[]; now: string }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="min-w-full text-sm" data-testid="audit-table">
        <thead className="border-b border-slate-200 bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
          <tr>
            {HEADERS.map((h, i) => (
              <th key={i} scope="col" className="px-3 py-2">
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <AuditEntryRow key={entry.id} entry={entry} now={now} />
          ))}
        </tbody>
      </table>
    </div>
  );
}
