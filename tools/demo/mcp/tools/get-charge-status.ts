import * as z from "zod";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { OutcomeUnknownError } from "idem-guard";
import type { DemoCaller } from "@/tools/demo/mcp/demo-caller";
import type { ReferenceLookup } from "@/tools/demo/mcp/processor-client";
import { errorResult, jsonResult } from "@/tools/demo/mcp/tool-result";
import type { ToolDeps } from "@/tools/demo/mcp/tool-deps";

export const getChargeStatusInput = {
  ref: z.string().regex(/^[0-9a-fA-F]{12}$/, "expected the 12-hex ref from the message, e.g. 3f9a1c2b7d4e"),
};

/** Tools whose key the processor knows as its own reference. */
const PROCESSOR_TOOLS = new Set(["charge_card", "refund_charge"]);

type Row = {
  key: string;
  tool: string | null;
  status: string;
  response: unknown;
  created_at: Date;
  updated_at: Date | null;
};

/**
 * What the in-flight and outcome-unknown messages tell the caller to use: the row the ref names
 * (only within the caller's tenant), and what the processor says about that reference.
 */
export async function getChargeStatus(
  deps: ToolDeps,
  caller: DemoCaller,
  args: { ref: string },
): Promise<CallToolResult> {
  const ref = args.ref.toLowerCase();
  // The ref is a key prefix: with the "C" collation this is a range scan on the primary key.
  const { rows } = await deps.db.query<Row>(
    `SELECT key, tool, status, response, created_at, updated_at FROM idempotency
     WHERE key >= $1 AND key < $2 AND tenant = $3 ORDER BY key LIMIT 2`,
    [ref, `${ref}g`, caller.tenant],
  );
  const row = rows[0];
  if (!row) return errorResult(`No operation with ref ${ref} for this account.`, "answered");
  if (rows.length > 1)
    return errorResult(`Ref ${ref} matches more than one operation; ask support to look it up.`, "answered");

  let processor: ReferenceLookup | { found: "unknown"; message: string } | null = null;
  if (row.tool !== null && PROCESSOR_TOOLS.has(row.tool)) {
    try {
      processor = await deps.processor.lookUp(row.key);
    } catch (error) {
      if (!(error instanceof OutcomeUnknownError)) throw error;
      processor = { found: "unknown", message: "the processor did not answer in time" };
    }
  }
  return jsonResult(
    {
      ref,
      tool: row.tool,
      status: row.status,
      created_at: row.created_at.toISOString(),
      updated_at: row.updated_at?.toISOString() ?? null,
      response: row.response,
      processor:
        processor === null
          ? null
          : processor.found === true
            ? { status: processor.status, receipt: processor.receipt }
            : processor.found === false
              ? { status: "not_found" }
              : { status: "unknown", message: processor.message },
    },
    "answered",
    ref,
  );
}
