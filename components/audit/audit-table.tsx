"use client";

import { Link } from "@/components/ui/link";
import { useMemo, useState } from "react";
import { RecordTime } from "@/components/records/record-time";
import { JsonView } from "@/components/ui/json-view";
import { Badge, type BadgeTone } from "@/components/ui/badge";
import { Button } from "@/components/ui/button";
import { DataTable, dataColumns, srOnlyHeader } from "@/components/ui/data-table";
import type { AuditEntryView } from "@/lib/audit/list-audit";

function actionTone(action: string): BadgeTone {
  if (action.includes("release") || action.startsWith("retention.trim_unresolved")) return "warn";
  if (action.startsWith("record.")) return "good";
  if (action.startsWith("retention.")) return "info";
  return "neutral";
}

const column = dataColumns<AuditEntryView>();
const dash = <span className="text-slate-500">—</span>;

/** A non-record entry: what it is about (a tool, a token, a trim), or a dash. */
function AboutCell({ about }: { about: AuditEntryView["about"] }) {
  if (!about) return dash;
  const text = (
    <span className="line-clamp-2 max-w-64 text-xs text-slate-700 [overflow-wrap:anywhere]" data-testid="audit-about">
      {about.label}
    </span>
  );
  return about.href ? (
    <Link href={about.href} className="underline underline-offset-2 hover:text-slate-600">
      {text}
    </Link>
  ) : (
    text
  );
}

function hasDetail(entry: AuditEntryView): boolean {
  return entry.before !== null || entry.after !== null || entry.evidence !== null;
}

function auditColumns(now: string, open: ReadonlySet<string>, toggle: (id: string) => void) {
  return column.columns([
    column.accessor("at", {
      id: "time",
      header: "Time",
      cell: (info) => <RecordTime at={info.getValue()} now={now} />,
    }),
    column.accessor("actor", {
      id: "actor",
      header: "Actor",
      cell: (info) => (
        <span className="block max-w-52 truncate" title={info.getValue()}>
          {info.getValue()}
        </span>
      ),
    }),
    column.accessor("actorRole", { id: "role", header: "Role", meta: { cellClassName: "text-slate-600" } }),
    column.accessor("action", {
      id: "action",
      header: "Action",
      cell: (info) => (
        <Badge tone={actionTone(info.getValue())} mono className="font-normal">
          {info.getValue()}
        </Badge>
      ),
    }),
    column.accessor("ref", {
      id: "record",
      header: "About",
      cell: ({ row: { original: entry } }) =>
        entry.key === null ? (
          <AboutCell about={entry.about} />
        ) : entry.recordExists ? (
          <Link
            href={`/records/${entry.key}`}
            title={entry.key}
            className="font-mono text-xs text-slate-900 underline underline-offset-2 hover:text-slate-600"
          >
            {entry.ref}
          </Link>
        ) : (
          // Released or trimmed: there is no record page any more, only the key to search for.
          <span
            className="whitespace-nowrap font-mono text-xs text-slate-500"
            title={`${entry.key} — the record no longer exists`}
          >
            {entry.ref}… <span className="font-sans italic text-slate-500">gone</span>
          </span>
        ),
    }),
    column.accessor("tenant", {
      id: "tenant",
      header: "Tenant",
      meta: { cellClassName: "whitespace-nowrap text-slate-600" },
      cell: (info) => info.getValue() ?? dash,
    }),
    column.accessor("reason", {
      id: "reason",
      header: "Reason",
      cell: (info) => (
        <span className="line-clamp-2 max-w-md text-slate-700" title={info.getValue() ?? undefined}>
          {info.getValue() ?? dash}
        </span>
      ),
    }),
    column.display({
      id: "detail",
      header: srOnlyHeader("Details"),
      meta: { cellClassName: "text-right" },
      cell: ({ row: { original: entry } }) =>
        hasDetail(entry) ? (
          <Button size="xs" onClick={() => toggle(entry.id)} aria-expanded={open.has(entry.id)} className="font-normal">
            {open.has(entry.id) ? "Hide" : "Details"}
          </Button>
        ) : null,
    }),
  ]);
}

/** Below an opened entry: its before / after / evidence as JSON. */
function EntryDetail({ entry }: { entry: AuditEntryView }) {
  return (
    <div data-testid="audit-entry-detail">
      {entry.key ? <p className="mb-2 font-mono text-xs text-slate-500">key {entry.key}</p> : null}
      <div className="grid gap-3 lg:grid-cols-3">
        {(["before", "after", "evidence"] as const).map((part) => (
          <section key={part} className="min-w-0">
            <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">{part}</h3>
            {entry[part] === null ? (
              <p className="text-xs text-slate-500">none</p>
            ) : (
              <JsonView value={entry[part]} label={`${part} of audit entry ${entry.id}`} />
            )}
          </section>
        ))}
      </div>
      {entry.redactedPaths.length > 0 ? (
        <p className="mt-2 text-xs text-amber-800">
          Masked: {entry.redactedPaths.join(", ")}. To see a record’s response whole, reveal it on its page (audited).
        </p>
      ) : null}
    </div>
  );
}

/** The audit entries of one page, newest first; `now` comes from the server so both renders agree on ages. */
export function AuditTable({ entries, now }: { entries: AuditEntryView[]; now: string }) {
  const [open, setOpen] = useState<ReadonlySet<string>>(new Set());
  const columns = useMemo(
    () =>
      auditColumns(now, open, (id) =>
        setOpen((current) => {
          const next = new Set(current);
          if (!next.delete(id)) next.add(id);
          return next;
        }),
      ),
    [now, open],
  );
  return (
    <DataTable
      columns={columns}
      data={entries}
      getRowId={(entry) => entry.id}
      testId="audit-table"
      rowAttributes={(entry) => ({
        "data-audit-id": entry.id,
        "data-action": entry.action,
        className: "align-top hover:bg-slate-50",
      })}
      detail={(entry) => (open.has(entry.id) ? <EntryDetail entry={entry} /> : null)}
    />
  );
}
