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
import { Fragment, useMemo, type HTMLAttributes, type ReactNode } from "react";
import { twMerge } from "tailwind-merge";
import { Button } from "@/components/ui/button";
import { TABLE_CLASSES } from "@/components/ui/table-classes";
import { Checkbox } from "@/components/ui/checkbox";

/**
 * Every table of the console is this one, on TanStack Table: semantic <table> markup with a
 * header cell for every column, the server's row order (keyset-paged pages arrive sorted),
 * optional row selection for bulk work, optional client sorting, and cells that may span columns.
 *
 * Below md every row is a card: each cell on a line of its own with its column's name beside the
 * value (app/globals.css, `.data-table-cards`). A phone never scrolls sideways to find a row's
 * status, and no column hides behind another. The markup stays a table (explicit roles, since a
 * table shown as blocks loses its native ones) and the header row stays for screen readers.
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
    /** The column's name beside each value on a narrow screen; defaults to the header when it is text. */
    label?: string;
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
  className?: string;
  tableClassName?: string;
};

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
  className,
  tableClassName,
}: Props<Row>) {
  const selecting = Boolean(selection);
  const allColumns = useMemo<DataColumn<Row>[]>(() => {
    if (!selection) return columns;
    const select: DataColumn<Row> = {
      id: "select",
      enableSorting: false,
      meta: { headerClassName: "w-8", cellClassName: "w-8", label: "Select" },
      header: ({ table }) => (
        <>
          <span className="sr-only">Select</span>
          <Checkbox
            aria-label={selection.allLabel}
            checked={table.getIsAllRowsSelected()}
            onChange={table.getToggleAllRowsSelectedHandler()}
          />
        </>
      ),
      cell: ({ row }) => (
        <Checkbox
          aria-label={selection.rowLabel(row.original)}
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

  const columnCount = allColumns.length;
  const leafColumns = table.getAllLeafColumns();

  function headerContent(header: Header<DataTableFeatures, Row, unknown>) {
    if (header.isPlaceholder) return null;
    const content = <table.FlexRender header={header} />;
    return header.column.getCanSort() ? <SortableHeader header={header}>{content}</SortableHeader> : content;
  }

  return (
    // relative: a screen-reader-only label inside a cell is positioned against this box, so it
    // cannot stick out of the scroll area and widen the page.
    <div className={twMerge(TABLE_CLASSES.wrapper, className)}>
      <table role="table" className={twMerge(TABLE_CLASSES.table, tableClassName)} data-testid={testId}>
        {caption ? (
          <caption className="px-3 pt-3 text-left text-sm font-medium text-slate-700">{caption}</caption>
        ) : null}
        <thead role="rowgroup" className={TABLE_CLASSES.head}>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id} role="row">
              {group.headers.map((header) => {
                const meta = header.column.columnDef.meta;
                const sorted = header.column.getIsSorted();
                return (
                  <th
                    key={header.id}
                    role="columnheader"
                    scope="col"
                    colSpan={header.colSpan > 1 ? header.colSpan : undefined}
                    title={meta?.headerTitle}
                    data-label={header.column.id === "select" ? "Select all" : undefined}
                    aria-sort={
                      header.column.getCanSort()
                        ? sorted === "asc"
                          ? "ascending"
                          : sorted === "desc"
                            ? "descending"
                            : "none"
                        : undefined
                    }
                    className={twMerge(TABLE_CLASSES.th, meta?.headerClassName)}
                  >
                    {headerContent(header)}
                  </th>
                );
              })}
            </tr>
          ))}
        </thead>
        <tbody role="rowgroup" className={TABLE_CLASSES.body}>
          {table.getRowModel().rows.map((row) => {
            const attributes = rowAttributes?.(row.original) ?? {};
            const below = detail?.(row.original) ?? null;
            return (
              <Fragment key={row.id}>
                <tr role="row" {...attributes}>
                  {row.getAllCells().map((cell) => {
                    const colSpan = cell.getColSpan();
                    if (colSpan === 0) return null;
                    return (
                      <td
                        key={cell.id}
                        role="cell"
                        colSpan={colSpan > 1 ? colSpan : undefined}
                        data-column={cell.column.id}
                        data-label={spannedLabel(leafColumns, cell.column.id, colSpan)}
                        className={twMerge(TABLE_CLASSES.td, cell.column.columnDef.meta?.cellClassName)}
                      >
                        <table.FlexRender cell={cell} />
                      </td>
                    );
                  })}
                </tr>
                {below === null ? null : (
                  <tr role="row" className="bg-slate-50/60" data-detail-of={row.id}>
                    <td role="cell" colSpan={columnCount} className="px-3 py-3">
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

type LabelledColumn = { id: string; columnDef: { header?: unknown; meta?: { label?: string } } };

function columnLabel(column: LabelledColumn): string | undefined {
  return (
    column.columnDef.meta?.label ?? (typeof column.columnDef.header === "string" ? column.columnDef.header : undefined)
  );
}

/** A cell's name on a narrow screen: its column's, or the first and last of the columns it spans. */
function spannedLabel(columns: LabelledColumn[], id: string, colSpan: number): string | undefined {
  const start = columns.findIndex((c) => c.id === id);
  const first = columns[start];
  if (!first) return undefined;
  const last = colSpan > 1 ? columns[start + colSpan - 1] : undefined;
  const [from, to] = [columnLabel(first), last ? columnLabel(last) : undefined];
  return from && to ? `${from} – ${to}` : from;
}

/** The header of a column that shows no words (actions, details): named for screen readers, so no <th> is empty. */
export function srOnlyHeader(words: string) {
  return function SrOnlyHeader() {
    return <span className="sr-only">{words}</span>;
  };
}

export { isPlainRowClick } from "@/components/ui/row-click";
