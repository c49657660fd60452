import { Link } from "@/components/ui/link";
import { CopyRefButton } from "@/components/records/copy-ref-button";
import { RecordTime } from "@/components/records/record-time";
import { StatusBadge } from "@/components/records/status-badge";
import { StaticTable, type StaticColumn } from "@/components/ui/static-table";
import type { RecordListItem } from "@/lib/records/list-records";

// No sorting: the table renders exactly the page the server chose (newest first, keyset-paged).
// A server component: the list is the records page's first paint, and TanStack Table (with the
// status badge's duration rules) would be JavaScript the browser downloads only to draw it again.

/** The column ids, fixed: nothing from the URL ever names a column. */
export const RECORD_COLUMN_IDS = ["ref", "tenant", "subject", "tool", "status", "age", "updated"] as const;

function unrecorded(label = "unrecorded") {
  return <span className="italic text-slate-500">{label}</span>;
}

function recordColumns(now: string): StaticColumn<RecordListItem>[] {
  return [
    {
      id: "ref",
      header: "Ref",
      cell: (record) => (
        <span className="inline-flex items-center gap-1">
          <Link
            href={`/records/${record.key}`}
            className="font-mono text-xs text-slate-900 underline-offset-2 hover:underline"
            title={record.key}
          >
            {record.ref}
          </Link>
          <CopyRefButton text={record.ref} />
        </span>
      ),
    },
    { id: "tenant", header: "Tenant", cell: (record) => record.tenant },
    {
      id: "subject",
      header: "Subject",
      cell: ({ subject }) =>
        subject === null ? (
          unrecorded()
        ) : (
          <span className="block max-w-48 truncate" title={subject}>
            {subject}
          </span>
        ),
    },
    {
      id: "tool",
      header: "Tool",
      cell: ({ tool }) => (tool === null ? unrecorded() : <span className="font-mono text-xs">{tool}</span>),
    },
    {
      id: "status",
      header: "Status",
      cell: (record) => <StatusBadge status={record.status} stuck={record.stuck} stuckAfterMs={record.stuckAfterMs} />,
    },
    { id: "age", header: "Age", cell: (record) => <RecordTime at={record.createdAt} now={now} suffix="" /> },
    {
      id: "updated",
      header: "Updated",
      cell: ({ updatedAt }) =>
        updatedAt === null ? <span className="text-slate-500">—</span> : <RecordTime at={updatedAt} now={now} />,
    },
  ];
}

export function RecordsTable({ records, now }: { records: RecordListItem[]; now: string }) {
  return (
    <StaticTable
      columns={recordColumns(now)}
      rows={records}
      getRowId={(record) => record.key}
      testId="records-table"
      rowHref={(record) => `/records/${record.key}`}
      rowData={(record) => ({
        "data-key": record.key,
        "data-stuck": record.stuck ? "true" : undefined,
        className: `cursor-pointer hover:bg-slate-50 ${record.stuck ? "bg-red-50/60 shadow-[inset_3px_0_0_0_var(--color-red-500)]" : ""}`,
      })}
    />
  );
}
