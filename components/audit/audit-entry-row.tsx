"use client";

import Link from "next/link";
import { useState } from "react";
import { RecordTime } from "@/components/records/record-time";
import { JsonView } from "@/components/records-detail/json-view";
import type { AuditEntryView } from "@/lib/audit/list-audit";
import { Button } from "@/components/ui/button";

const COLUMNS = 8;

function actionTone(action: string): string {
  if (action.includes("release") || action.startsWith("retention.trim_unresolved")) return "bg-amber-50 text-amber-800 ring-amber-200";
  if (action.startsWith("record.")) return "bg-emerald-50 text-emerald-800 ring-emerald-200";
  if (action.startsWith("retention.")) return "bg-sky-50 text-sky-800 ring-sky-200";
  return "bg-slate-100 text-slate-700 ring-slate-200";
}

/** One audit entry: a row, and below it (on demand) its before / after / evidence as JSON. */
export function AuditEntryRow({ entry, now }: { entry: AuditEntryView; now: string }) {
  const [open, setOpen] = useState(false);
  const hasDetail = entry.before !== null || entry.after !== null || entry.evidence !== null;
  return (
    <>
      <tr data-audit-id={entry.id} data-action={entry.action} className="border-b border-slate-100 align-top last:border-0 hover:bg-slate-50">
        <td className="px-3 py-2" data-column="time">
          <RecordTime at={entry.at} now={now} />
        </td>
        <td className="px-3 py-2" data-column="actor">
          <span className="block max-w-52 truncate" title={entry.actor}>{entry.actor}</span>
        </td>
        <td className="px-3 py-2 text-slate-600" data-column="role">{entry.actorRole}</td>
        <td className="px-3 py-2" data-column="action">
          <span className={`inline-flex rounded-full px-2 py-0.5 font-mono text-xs ring-1 ring-inset whitespace-nowrap ${actionTone(entry.action)}`}>{entry.action}</span>
        </td>
        <td className="px-3 py-2" data-column="record">
          {entry.key === null ? (
            <span className="text-slate-500">—</span>
          ) : entry.recordExists ? (
            <Link href={`/records/${entry.key}`} title={entry.key} className="font-mono text-xs text-slate-900 underline underline-offset-2 hover:text-slate-600">
              {entry.ref}
            </Link>
          ) : (
            // Released or trimmed: there is no record page any more, only the key to search for.
            <span className="whitespace-nowrap font-mono text-xs text-slate-500" title={`${entry.key} — the record no longer exists`}>
              {entry.ref}… <span className="font-sans italic text-slate-500">gone</span>
            </span>
          )}
        </td>
        <td className="whitespace-nowrap px-3 py-2 text-slate-600" data-column="tenant">{entry.tenant ?? <span className="text-slate-500">—</span>}</td>
        <td className="px-3 py-2" data-column="reason">
          <span className="line-clamp-2 max-w-md text-slate-700" title={entry.reason ?? undefined}>{entry.reason ?? <span className="text-slate-500">—</span>}</span>
        </td>
        <td className="px-3 py-2 text-right" data-column="detail">
          {hasDetail ? (
            <Button variant="secondary" size="xs" onClick={() => setOpen(!open)} aria-expanded={open}>
              {open ? "Hide" : "Details"}
            </Button>
          ) : null}
        </td>
      </tr>
      {open ? (
        <tr className="border-b border-slate-100 bg-slate-50/60" data-testid="audit-entry-detail">
          <td colSpan={COLUMNS} className="px-3 py-3">
            {entry.key ? <p className="mb-2 font-mono text-xs text-slate-500">key {entry.key}</p> : null}
            <div className="grid gap-3 lg:grid-cols-3">
              {(["before", "after", "evidence"] as const).map((part) => (
                <section key={part} className="min-w-0">
                  <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">{part}</h3>
                  {entry[part] === null ? <p className="text-xs text-slate-500">none</p> : <JsonView value={entry[part]} label={`${part} of audit entry ${entry.id}`} />}
                </section>
              ))}
            </div>
            {entry.redactedPaths.length > 0 ? (
              <p className="mt-2 text-xs text-amber-800">Masked: {entry.redactedPaths.join(", ")}. To see a record's response whole, reveal it on its page (audited).</p>
            ) : null}
          </td>
        </tr>
      ) : null}
    </>
  );
}
