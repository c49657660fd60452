import "server-only";
import type { Actor } from "@/lib/identity/actor";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import { refOf } from "idem-guard";
import { findVisibleRecord } from "@/lib/records/visible-records";
import { redactJson, redactionOf } from "@/lib/privacy/redact";
import { askProcessor } from "./ask-processor";
import type { ProcessorCheck } from "./processor-check-types";

export type RecordCheck = {
  key: string;
  ref: string;
  tool: string | null;
  /** The row's status when it was read, so a later action can tell whether it changed since. */
  status: string;
  check: ProcessorCheck;
  /** JSONPaths masked in the receipt and evidence for this actor (docs/architecture.md#roles-and-permissions). */
  redactedPaths: string[];
};

/**
 * "Ask the processor" for one record the actor may see (null: absent or another tenant's).
 * Reads the row and asks; writes nothing. The receipt is what a payment processor returns about a
 * card, so it is redacted like a stored response, for every role.
 */
export async function checkRecord(db: Db, config: IdemConfig, actor: Actor, key: string): Promise<RecordCheck | null> {
  const row = await findVisibleRecord(db, actor, key);
  if (!row) return null;
  const check = await askProcessor(config, { key: row.key, tool: row.tool });
  const receipt = check.receipt === undefined ? undefined : redactJson(check.receipt, redactionOf(config));
  const body = check.evidence.body === undefined ? undefined : redactJson(check.evidence.body, redactionOf(config));
  const redactedPaths = [...new Set([...(receipt?.redactedPaths ?? []), ...(body?.redactedPaths ?? [])])].sort();
  const shown = {
    ...check,
    ...(receipt ? { receipt: receipt.value } : {}),
    evidence: { ...check.evidence, ...(body ? { body: body.value } : {}) },
  };
  return { key: row.key, ref: refOf(row.key), tool: row.tool, status: row.status, check: shown, redactedPaths };
}
