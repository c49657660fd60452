"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo } from "react";
import { CopyRefButton } from "@/components/records/copy-ref-button";
import { RecordTime } from "@/components/records/record-time";
import { StatusBadge } from "@/components/records/status-badge";
import { DataTable, dataColumns, isPlainRowClick } from "@/components/ui/data-table";
import type { RecordListItem } from "@/lib/records/list-records";

// No sorting: the table renders exactly the page the server chose (newest first, keyset-paged).
const column = dataColumns<RecordListItem>();

/** The column ids, fixed: nothing from the URL ever names a column. */
export const RECORD_COLUMN_IDS = ["ref", "tenant", "subject", "tool", "status", "age", "updated"] as const;

function unrecorded(label = "unrecorded") {
  return <span className="italic text-slate-500">{label}</span>;
}

export function RecordsTable({ records, now }: { records: RecordListItem[]; now: string }) {
  const router = useRouter();
  const columns = useMemo(
    () =>
      column.columns([
        column.accessor("ref", {
          id: "ref",
          header: "Ref",
          cell: (info) => (
            <span className="inline-flex items-center gap-1">
              <Link
                href={`/records/${info.row.original.key}`}
                className="font-mono text-xs text-slate-900 underline-offset-2 hover:underline"
                title={info.row.original.key}
              >
                {info.getValue()}
              </Link>
              <CopyRefButton text={info.getValue()} />
            </span>
          ),
        }),
        column.accessor("tenant", { id: "tenant", header: "Tenant", cell: (info) => info.getValue() }),
        column.accessor("subject", {
          id: "subject",
          header: "Subject",
          cell: (info) => {
            const subject = info.getValue();
            return subject === null ? (
              unrecorded()
            ) : (
              <span className="block max-w-48 truncate" title={subject}>
                {subject}
              </span>
            );
          },
        }),
        column.accessor("tool", {
          id: "tool",
          header: "Tool",
          cell: (info) => {
            const tool = info.getValue();
            return tool === null ? unrecorded() : <span className="font-mono text-xs">{tool}</span>;
          },
        }),
        column.accessor("status", {
          id: "status",
          header: "Status",
          cell: (info) => (
            <StatusBadge
              status={info.getValue()}
              stuck={info.row.original.stuck}
              stuckAfterMs={info.row.original.stuckAfterMs}
            />
          ),
        }),
        column.accessor("createdAt", {
          id: "age",
          header: "Age",
          cell: (info) => <RecordTime at={info.getValue()} now={now} suffix="" />,
        }),
        column.accessor("updatedAt", {
          id: "updated",
          header: "Updated",
          cell: (info) => {
            const updated = info.getValue();
            return updated === null ? <span className="text-slate-500">—</span> : <RecordTime at={updated} now={now} />;
          },
        }),
      ]),
    [now],
  );

  return (
    <DataTable
      columns={columns}
      data={records}
      getRowId={(row) => row.key}
      testId="records-table"
      rowAttributes={(record) => ({
        "data-key": record.key,
        "data-stuck": record.stuck ? "true" : undefined,
        // The ref link and the copy button handle their own clicks; a selection is not a click.
        onClick: (event) => {
          if (isPlainRowClick(event)) router.push(`/records/${record.key}`);
        },
        className: `cursor-pointer hover:bg-slate-50 ${record.stuck ? "bg-red-50/60 shadow-[inset_3px_0_0_0_var(--color-red-500)]" : ""}`,
      })}
    />
  );
}
