"use client";

import { createColumnHelper, tableFeatures, useTable } from "@tanstack/react-table";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, type MouseEvent } from "react";
import { CopyRefButton } from "@/components/records/copy-ref-button";
import { RecordTime } from "@/components/records/record-time";
import { StatusBadge } from "@/components/records/status-badge";
import type { RecordListItem } from "@/lib/records/list-records";

// Manual mode by construction: no sorting, filtering or pagination feature is registered, so
// the table renders exactly the page the server chose (newest first, keyset-paged).
const features = tableFeatures({});
const column = createColumnHelper<typeof features, RecordListItem>();

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
              <Link href={`/records/${info.row.original.key}`} className="font-mono text-xs text-slate-900 underline-offset-2 hover:underline" title={info.row.original.key}>
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
            return subject === null ? unrecorded() : <span className="block max-w-48 truncate" title={subject}>{subject}</span>;
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
          cell: (info) => <StatusBadge status={info.getValue()} stuck={info.row.original.stuck} stuckAfterMs={info.row.original.stuckAfterMs} />,
        }),
        column.accessor("createdAt", { id: "age", header: "Age", cell: (info) => <RecordTime at={info.getValue()} now={now} suffix="" /> }),
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

  const table = useTable({ features, columns, data: records, getRowId: (row) => row.key });

  function openRow(event: MouseEvent<HTMLTableRowElement>, key: string) {
    // The ref link and the copy button handle their own clicks; a selection is not a click.
    if ((event.target as HTMLElement).closest("a,button") || window.getSelection()?.toString()) return;
    router.push(`/records/${key}`);
  }

  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="min-w-full text-sm" data-testid="records-table">
        <thead className="border-b border-slate-200 bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col" className="px-3 py-2">
                  {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody>
          {table.getRowModel().rows.map((row) => {
            const record = row.original;
            return (
              <tr
                key={row.id}
                data-key={record.key}
                data-stuck={record.stuck ? "true" : undefined}
                onClick={(event) => openRow(event, record.key)}
                className={`cursor-pointer border-b border-slate-100 last:border-0 hover:bg-slate-50 ${record.stuck ? "bg-red-50/60 shadow-[inset_3px_0_0_0_var(--color-red-500)]" : ""}`}
              >
                {row.getAllCells().map((cell) => (
                  <td key={cell.id} className="px-3 py-2 align-middle" data-column={cell.column.id}>
                    <table.FlexRender cell={cell} />
                  </td>
                ))}
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
