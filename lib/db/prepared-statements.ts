import "server-only";
import { createHash } from "node:crypto";
import { behindTransactionPooler } from "@/lib/db/pooler";

/**
 * Whether the console's clients may keep named prepared statements on their connections: a
 * statement prepared once per connection is not planned again on every request (docs/bench.md,
 * "Issue #31, fifth pass"). Not behind a transaction pooler (PgBouncer 1.18 hands the next
 * transaction another server connection, where the name is unknown), nor on the embedded database
 * (its connections share one session, where a second connection's Parse of the name would collide).
 */
export function mayPrepareStatements(url: string, embedded: boolean): boolean {
  return !embedded && !behindTransactionPooler(url);
}

/** Statement texts seen so far → their names; a handful of shapes, bounded in case a caller varies its text. */
const names = new Map<string, string>();
const MAX_NAMES = 200;

/**
 * The name a statement is prepared under: its purpose and a hash of its text, so that two texts of
 * one purpose (an actor with tenants adds a condition) never share a name — pg refuses a name
 * reused for another text on the same connection.
 */
export function preparedStatementName(purpose: string, text: string): string {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMES) names.clear();
    name = `idem_${purpose}_${createHash("sha1").update(text).digest("hex").slice(0, 12)}`;
    names.set(text, name);
  }
  return name;
}
