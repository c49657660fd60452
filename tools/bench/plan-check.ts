/**
 * Reads EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) output: a compact shape for the report, and the
 * two things the bench refuses on a big table — a sequential scan, and a sort of many of its rows
 * (both grow with the table: fine at 20,000 rows, seconds at 10 M).
 */
export type PlanNode = {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Sort Method"?: string;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
};

export type ExplainOutput = {
  Plan: PlanNode;
  "Execution Time"?: number;
  "Planning Time"?: number;
  /** Present when PostgreSQL compiled the statement (its cost passed jit_above_cost); Total is ms, in Execution Time. */
  JIT?: { Functions: number; Timing?: { Total?: number } };
};

/** A sort of fewer rows than this is a top-N of a page or a handful of groups: not "a sort over the table". */
export const SORT_ROWS_LIMIT = 1_000;
/**
 * Nor is a sort of at most this share of the table: the last minute's completions (2,500 rows at 60
 * calls a second) or a day's outcome_unknown events grow with the traffic, not with the table, and
 * sort in a fraction of a millisecond. What the check is for grows with the table: the open hour
 * sorted whole (118,487 rows, 1.2 % of 10 M) before minute slices. 1 in 1,000: 10,000 rows at 10 M.
 */
export const SORT_TABLE_SHARE = 0.001;

function rowsOf(node: PlanNode): number {
  return (node["Actual Rows"] ?? 0) * (node["Actual Loops"] ?? 1);
}

function scannedRelations(node: PlanNode): string[] {
  const own = node["Relation Name"] ? [node["Relation Name"]] : [];
  return [...own, ...(node.Plans ?? []).flatMap(scannedRelations)];
}

/** What is wrong with a plan, one sentence each; empty when nothing is. `big`: the big tables and their row counts. */
export function checkPlan(plan: PlanNode, big: ReadonlyMap<string, number>): string[] {
  const problems: string[] = [];
  const visit = (node: PlanNode) => {
    const relation = node["Relation Name"];
    if (node["Node Type"] === "Seq Scan" && relation && big.has(relation)) {
      problems.push(
        `sequential scan of ${relation} (${rowsOf(node).toLocaleString("en-US")} rows returned, ${(node["Rows Removed by Filter"] ?? 0).toLocaleString("en-US")} removed)`,
      );
    }
    if (node["Node Type"] === "Sort" || node["Node Type"] === "Incremental Sort") {
      const input = (node.Plans ?? []).reduce((sum, child) => sum + rowsOf(child), 0);
      const from = [...new Set(scannedRelations(node).filter((r) => big.has(r)))];
      const tableRows = Math.max(0, ...from.map((r) => big.get(r) ?? 0));
      if (from.length > 0 && input >= Math.max(SORT_ROWS_LIMIT, tableRows * SORT_TABLE_SHARE))
        problems.push(`sort of ${input.toLocaleString("en-US")} rows from ${from.join(", ")}`);
    }
    for (const child of node.Plans ?? []) visit(child);
  };
  visit(plan);
  return problems;
}

/** One line per node, indented by depth: "Index Scan using idempotency_pkey on idempotency (rows 1)". */
export function planShape(plan: PlanNode, depth = 0): string[] {
  const parts = [plan["Node Type"]];
  if (plan["Index Name"]) parts.push(`using ${plan["Index Name"]}`);
  if (plan["Relation Name"]) parts.push(`on ${plan["Relation Name"]}`);
  const details = [`rows ${rowsOf(plan).toLocaleString("en-US")}`];
  if (plan["Rows Removed by Filter"])
    details.push(`removed by filter ${plan["Rows Removed by Filter"].toLocaleString("en-US")}`);
  if (plan["Sort Method"]) details.push(plan["Sort Method"]);
  if (depth === 0)
    details.push(`buffers hit ${plan["Shared Hit Blocks"] ?? 0} read ${plan["Shared Read Blocks"] ?? 0}`);
  const line = `${"  ".repeat(depth)}${parts.join(" ")} (${details.join(", ")})`;
  return [line, ...(plan.Plans ?? []).flatMap((child) => planShape(child, depth + 1))];
}
