"use client";

import { Link } from "@/components/ui/link";
import { useMemo } from "react";
import { StatusBadge } from "@/components/records/status-badge";
import { TimeStamp } from "@/components/ui/time-stamp";
import { DataTable, dataColumns, srOnlyHeader } from "@/components/ui/data-table";
import type { RecordSummary } from "@/lib/records/lookup";

const column = dataColumns<RecordSummary>();
const unrecorded = <span className="italic text-slate-500">unrecorded</span>;
const cellClassName = "px-4";

function matchColumns(now: Date) {
  return column.columns([
    column.accessor("ref", {
      id: "ref",
      header: "Ref",
      meta: { headerClassName: "px-4", cellClassName: "px-4 font-mono" },
      cell: ({ row: { original: match } }) => (
        <span title={match.key}>
          {match.ref}
          <span className="text-slate-500">{match.key.slice(12, 18)}…</span>
        </span>
      ),
    }),
    column.accessor("tenant", { id: "tenant", header: "Tenant", meta: { headerClassName: "px-4", cellClassName } }),
    column.accessor("tool", {
      id: "tool",
      header: "Tool",
      meta: { headerClassName: "px-4", cellClassName: "px-4 font-mono" },
      cell: (info) => info.getValue() ?? unrecorded,
    }),
    column.accessor("subject", {
      id: "subject",
      header: "Subject",
      meta: { headerClassName: "px-4", cellClassName },
      cell: (info) => info.getValue() ?? unrecorded,
    }),
    column.accessor("status", {
      id: "status",
      header: "Status",
      meta: { headerClassName: "px-4", cellClassName },
      cell: (info) => <StatusBadge status={info.getValue()} wording="stored" />,
    }),
    column.accessor("createdAt", {
      id: "created",
      header: "Created",
      meta: { headerClassName: "px-4", cellClassName },
      cell: (info) => <TimeStamp iso={info.getValue()} now={now} />,
    }),
    column.display({
      id: "open",
      header: srOnlyHeader("Open the record"),
      meta: { headerClassName: "px-4", cellClassName: "px-4 text-right" },
      cell: ({ row: { original: match } }) => (
        <Link href={`/records/${match.key}`} className="text-sm font-medium text-slate-900 underline">
          Open
        </Link>
      ),
    }),
  ]);
}

/** The records a ref matched, to choose between by tenant, tool and time. */
export function LookupMatchesTable({ matches, now }: { matches: RecordSummary[]; now: Date }) {
  const columns = useMemo(() => matchColumns(now), [now]);
  return (
    <DataTable
      columns={columns}
      data={matches}
      getRowId={(match) => match.key}
      testId="lookup-matches-table"
      className="rounded-none border-0"
      tableClassName="w-full text-left"
      rowAttributes={() => ({ "data-testid": "lookup-match" })}
    />
  );
}
