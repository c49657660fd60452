import type { ReactNode } from "react";
import { twMerge } from "tailwind-merge";
import { RowLinkBody } from "@/components/ui/row-link-body";
import { TABLE_CLASSES } from "@/components/ui/table-classes";

export type StaticColumn<Row> = {
  id: string;
  header: string;
  cell: (row: Row) => ReactNode;
  cellClassName?: string;
};

type RowData = { [data: `data-${string}`]: string | undefined; className?: string };

type Props<Row> = {
  columns: StaticColumn<Row>[];
  rows: Row[];
  getRowId: (row: Row) => string;
  testId: string;
  rowData?: (row: Row) => RowData;
  /** The page a click on the row opens (its links and buttons keep their own clicks). */
  rowHref?: (row: Row) => string;
};

/**
 * A table the server renders whole: DataTable's markup and narrow-screen cards without TanStack
 * Table in the browser, for a table that neither sorts nor selects (the server chose the rows and
 * their order). Cells are server components; a row that opens on click needs one small listener.
 */
export function StaticTable<Row>({ columns, rows, getRowId, testId, rowData, rowHref }: Props<Row>) {
  const body = rows.map((row) => (
    <tr key={getRowId(row)} role="row" {...rowData?.(row)} data-href={rowHref?.(row)}>
      {columns.map((column) => (
        <td
          key={column.id}
          role="cell"
          data-column={column.id}
          data-label={column.header}
          className={twMerge(TABLE_CLASSES.td, column.cellClassName)}
        >
          {column.cell(row)}
        </td>
      ))}
    </tr>
  ));
  return (
    <div className={TABLE_CLASSES.wrapper}>
      <table role="table" className={TABLE_CLASSES.table} data-testid={testId}>
        <thead role="rowgroup" className={TABLE_CLASSES.head}>
          <tr role="row">
            {columns.map((column) => (
              <th key={column.id} role="columnheader" scope="col" className={TABLE_CLASSES.th}>
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
        {rowHref ? (
          <RowLinkBody className={TABLE_CLASSES.body}>{body}</RowLinkBody>
        ) : (
          <tbody role="rowgroup" className={TABLE_CLASSES.body}>
            {body}
          </tbody>
        )}
      </table>
    </div>
  );
}
