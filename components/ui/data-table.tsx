"use client";

import {
  cellSpanningFeature,
  createColumnHelper,
  createSortedRowModel,
  rowSelectionFeature,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  tableFeatures,
  useTable,
  type CellData,
  type ColumnDef,
  type Header,
  type RowData,
  type RowSelectionState,
  type TableFeatures,
} from "@tanstack/react-table";
import { Fragment, useMemo, type HTMLAttributes, type MouseEvent, type ReactNode } from "react";
import { twMerge } from "tailwind-merge";
import { Button } from "@/components/ui/button";

/**
 * Every table of the console is this one, on TanStack Table: semantic <table> markup with a
 * header cell for every column, the server's row order (keyset-paged pages arrive sorted),
 * optional row selection for bulk work, optional client sorting, and cells that may span columns.
 */
export const dataTableFeatures = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric, basic: sortFn_basic },
  rowSelectionFeature,
  cellSpanningFeature,
});
export type DataTableFeatures = typeof dataTableFeatures;

/** `const column = dataColumns<MyRow>()`, then `column.accessor(…)`, `column.display(…)`. */
export function dataColumns<Row extends RowData>() {
  return createColumnHelper<DataTableFeatures, Row>();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a column list mixes value types
export type DataColumn<Row extends RowData> = ColumnDef<DataTableFeatures, Row, any>;

declare module "@tanstack/react-table" {
  // An augmentation must repeat the library's type parameters, used or not.
  /* eslint-disable @typescript-eslint/no-unused-vars */
  interface ColumnMeta<
    in out TFeatures extends TableFeatures,
    in out TData extends RowData,
    TValue extends CellData = CellData,
  > {
    /* eslint-enable @typescript-eslint/no-unused-vars */
    /** Classes of the column's body cells, merged over the default padding. */
    cellClassName?: string;
    /** Classes of the column's header cell, merged over the default header style. */
    headerClassName?: string;
    /** The header's tooltip: what a short header means. */
    headerTitle?: string;
  }
}

type RowAttributes = HTMLAttributes<HTMLTableRowElement> & { [data: `data-${string}`]: string | undefined };

export type DataTableSelection<Row> = {
  state: RowSelectionState;
  onChange: (next: RowSelectionState) => void;
  /** The checkbox's accessible name on a row, e.g. "Select 3f9a1c2b7d4e". */
  rowLabel: (row: Row) => string;
  /** The header checkbox's accessible name. */
  allLabel: string;
};

type Props<Row extends RowData> = {
  columns: DataColumn<Row>[];
  data: Row[];
  getRowId: (row: Row) => string;
  testId: string;
  caption?: ReactNode;
  /** Attributes of a body row: data-* for tests, a tone, a click. */
  rowAttributes?: (row: Row) => RowAttributes;
  /** Content under a row spanning every column (an opened audit entry), or null. */
  detail?: (row: Row) => ReactNode;
  selection?: DataTableSelection<Row>;
  /** Client sorting by clicking a header (columns opt out with enableSorting: false). */
  sortable?: boolean;
  /** Below md each row is a block of its own: a phone never scrolls sideways to the last column. */
  stackBelowMd?: boolean;
  className?: string;
  tableClassName?: string;
};

const HEAD =
  "border-b border-slate-200 bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500";
const TH = "px-3 py-2 font-medium";
const TD = "px-3 py-2";

function SortableHeader<Row extends RowData>({
  header,
  children,
}: {
  header: Header<DataTableFeatures, Row, unknown>;
  children: ReactNode;
}) {
  const sorted = header.column.getIsSorted();
  return (
    <Button
      variant="ghost"
      size="xs"
      onClick={header.column.getToggleSortingHandler()}
      className="-mx-2 uppercase tracking-wide text-inherit"
    >
      {children}
      <span aria-hidden="true" className="text-[10px]">
        {sorted === "asc" ? "▲" : sorted === "desc" ? "▼" : "↕"}
      </span>
    </Button>
  );
}

export function DataTable<Row extends RowData>({
  columns,
  data,
  getRowId,
  testId,
  caption,
  rowAttributes,
  detail,
  selection,
  sortable = false,
  stackBelowMd = false,
  className,
  tableClassName,
}: Props<Row>) {
  const selecting = Boolean(selection);
  const allColumns = useMemo<DataColumn<Row>[]>(() => {
    if (!selection) return columns;
    const select: DataColumn<Row> = {
      id: "select",
      enableSorting: false,
      meta: { headerClassName: "w-8", cellClassName: "w-8" },
      header: ({ table }) => (
        <>
          <span className="sr-only">Select</span>
          <input
            type="checkbox"
            aria-label={selection.allLabel}
            className="h-4 w-4"
            checked={table.getIsAllRowsSelected()}
            onChange={table.getToggleAllRowsSelectedHandler()}
          />
        </>
      ),
      cell: ({ row }) => (
        <input
          type="checkbox"
          aria-label={selection.rowLabel(row.original)}
          className="h-4 w-4"
          checked={row.getIsSelected()}
          onChange={row.getToggleSelectedHandler()}
        />
      ),
    };
    return [select, ...columns];
    // The labels are read at render; the column set changes only when selection is switched on or off.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [columns, selecting]);

  const table = useTable({
    features: dataTableFeatures,
    columns: allColumns,
    data,
    getRowId,
    enableSorting: sortable,
    enableMultiSort: false,
    enableSubRowSelection: false,
    ...(selection
      ? {
          state: { rowSelection: selection.state },
          onRowSelectionChange: (updater: RowSelectionState | ((old: RowSelectionState) => RowSelectionState)) =>
            selection.onChange(typeof updater === "function" ? updater(selection.state) : updater),
        }
      : {}),
  });

  // Whole class names, never built from parts: Tailwind only generates classes it finds written out.
  const stack = (classes: string) => (stackBelowMd ? classes : "");
  const columnCount = allColumns.length;

  function headerContent(header: Header<DataTableFeatures, Row, unknown>) {
    if (header.isPlaceholder) return null;
    const content = <table.FlexRender header={header} />;
    return header.column.getCanSort() ? <SortableHeader header={header}>{content}</SortableHeader> : content;
  }

  return (
    <div className={twMerge("overflow-x-auto rounded-lg border border-slate-200 bg-white", className)}>
      <table
        className={twMerge("min-w-full text-sm", stackBelowMd ? "block md:table" : "", tableClassName)}
        data-testid={testId}
      >
        {caption ? (
          <caption className="px-3 pt-3 text-left text-sm font-medium text-slate-700">{caption}</caption>
        ) : null}
        <thead className={twMerge(HEAD, stack("hidden md:table-header-group"))}>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => {
                const meta = header.column.columnDef.meta;
                const sorted = header.column.getIsSorted();
                return (
                  <th
                    key={header.id}
                    scope="col"
                    colSpan={header.colSpan > 1 ? header.colSpan : undefined}
                    title={meta?.headerTitle}
                    aria-sort={
                      header.column.getCanSort()
                        ? sorted === "asc"
                          ? "ascending"
                          : sorted === "desc"
                            ? "descending"
                            : "none"
                        : undefined
                    }
                    className={twMerge(TH, meta?.headerClassName)}
                  >
                    {headerContent(header)}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody className={twMerge("divide-y divide-slate-100", stack("block md:table-row-group"))}>
          {table.getRowModel().rows.map((row) => {
            const attributes = rowAttributes?.(row.original) ?? {};
            const below = detail?.(row.original) ?? null;
            return (
              <Fragment key={row.id}>
                <tr {...attributes} className={twMerge(stack("block py-1 md:table-row"), attributes.className)}>
                  {row.getAllCells().map((cell) => {
                    const colSpan = cell.getColSpan();
                    if (colSpan === 0) return null;
                    return (
                      <td
                        key={cell.id}
                        colSpan={colSpan > 1 ? colSpan : undefined}
                        data-column={cell.column.id}
                        className={twMerge(TD, cell.column.columnDef.meta?.cellClassName, stack("block md:table-cell"))}
                      >
                        <table.FlexRender cell={cell} />
                      </td>
                    );
                  })}
                </tr>
                {below === null ? null : (
                  <tr className="bg-slate-50/60" data-detail-of={row.id}>
                    <td colSpan={columnCount} className="px-3 py-3">
                      {below}
                    </td>
                  </tr>
                )}
              </Fragment>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

/** The header of a column that shows no words (actions, details): named for screen readers, so no <th> is empty. */
export function srOnlyHeader(words: string) {
  return function SrOnlyHeader() {
    return <span className="sr-only">{words}</span>;
  };
}

/** For a row that opens on click: ignore clicks on its links and buttons, and text being selected. */
export function isPlainRowClick(event: MouseEvent<HTMLElement>): boolean {
  return (
    !(event.target as HTMLElement).closest("a,button,input,label,select,textarea") && !window.getSelection()?.toString()
  );
}
