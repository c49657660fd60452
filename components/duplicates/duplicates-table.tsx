"use client";

import { Link } from "@/components/ui/link";
import { useMemo } from "react";
import { DataTable, dataColumns } from "@/components/ui/data-table";
import { formatAge } from "@/lib/format/relative-time";
import { formatGap, formatUtcTime } from "@/lib/duplicates/duplicate-text";
import type { DuplicateEntryView } from "@/lib/duplicates/duplicates-report";

const column = dataColumns<DuplicateEntryView>();
const dash = <span className="text-slate-500">none</span>;

function RecordLink({ claim, label }: { claim: DuplicateEntryView["first"]; label: string }) {
  return (
    <Link
      href={`/records/${claim.key}`}
      title={`${label} claim: ${claim.key}, ${claim.createdAt.replace("T", " ").replace("Z", " UTC")}`}
      className="font-mono text-xs text-slate-900 underline underline-offset-2 hover:text-slate-600"
    >
      {claim.ref}
    </Link>
  );
}

function duplicateColumns(now: string) {
  return column.columns([
    column.accessor((entry) => entry.second.createdAt, {
      id: "second",
      header: "Second claim",
      cell: (info) => (
        <time
          dateTime={info.getValue()}
          title={info.getValue().replace("T", " ").replace("Z", " UTC")}
          className="tabular-nums"
        >
          {/* Each part whole; on a phone card the age goes under the time instead of past the edge. */}
          <span className="whitespace-nowrap">{formatUtcTime(info.getValue(), now)}</span>{" "}
          <span className="whitespace-nowrap text-xs text-slate-500">
            ({formatAge(new Date(info.getValue()), new Date(now))} ago)
          </span>
        </time>
      ),
    }),
    column.accessor("tool", {
      id: "tool",
      header: "Tool",
      meta: { cellClassName: "font-mono text-xs" },
    }),
    column.accessor("tenant", { id: "tenant", header: "Tenant", meta: { cellClassName: "text-slate-700" } }),
    column.accessor("subject", {
      id: "subject",
      header: "Subject",
      cell: (info) => (
        <span className="block max-w-48 truncate" title={info.getValue() ?? undefined}>
          {info.getValue() ?? dash}
        </span>
      ),
    }),
    column.accessor("gapMs", {
      id: "gap",
      header: "Gap",
      meta: { headerTitle: "Time from the first claim to the second", cellClassName: "whitespace-nowrap tabular-nums" },
      cell: (info) => formatGap(info.getValue()),
    }),
    column.accessor("bucketEdge", {
      id: "edge",
      header: "Bucket edge",
      meta: { headerTitle: "The bucket boundary between the two claims (the tool's window)" },
      cell: ({ row: { original: entry } }) =>
        entry.bucketEdge === null ? (
          <span className="italic text-slate-600" title="Both claims in one bucket: the keys differ for another reason">
            same bucket
          </span>
        ) : (
          <span className="whitespace-nowrap tabular-nums" title={`${entry.windowSeconds} s buckets`}>
            {formatUtcTime(entry.bucketEdge, now)}
          </span>
        ),
    }),
    column.display({
      id: "records",
      header: "Records",
      meta: { headerTitle: "The first claim, then the second" },
      cell: ({ row: { original: entry } }) => (
        <span className="whitespace-nowrap">
          <RecordLink claim={entry.first} label="First" />
          <span className="mx-1 text-slate-500">then</span>
          <RecordLink claim={entry.second} label="Second" />
        </span>
      ),
    }),
  ]);
}

/** One page of duplicates that got through, newest second claim first; `now` comes from the server. */
export function DuplicatesTable({ entries, now }: { entries: DuplicateEntryView[]; now: string }) {
  const columns = useMemo(() => duplicateColumns(now), [now]);
  return (
    <DataTable
      columns={columns}
      data={entries}
      getRowId={(entry) => entry.second.key}
      testId="duplicates-table"
      caption="Each row: one operation executed twice"
      rowAttributes={(entry) => ({
        "data-second-key": entry.second.key,
        "data-tool": entry.tool,
        className: "hover:bg-slate-50",
      })}
    />
  );
}
