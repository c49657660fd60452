import "server-only";
import { declaredHints } from "@/lib/tool-listings/effective-annotations";
import type { ListedTool } from "@/lib/tool-listings/annotation-types";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";

/** A tool the console knows of without looking at the table, and what its listings declare. */
export type KnownTool = {
  /** idempotentHint as declared (a boolean in the annotations), true when any server declares true; null: none declares it. */
  declaredIdempotentHint: boolean | null;
  /** Servers whose newest good listing names the tool. */
  listedBy: string[];
};

/**
 * Every tool the metrics must show even with no rows: the configuration's tools and every tool
 * named by the newest good tools/list of each server (configured, added or uploaded). A tool that
 * claims idempotentHint and never writes a key is exactly the one a table-only view would hide.
 * One small read: the newest listing per server (index on server, taken_at DESC).
 */
export async function loadKnownTools(db: Db, config: IdemConfig): Promise<Map<string, KnownTool>> {
  const rows = await db.$queryRaw<{ server: string; tools: unknown }[]>`
    SELECT DISTINCT ON (server) server, tools FROM tool_snapshot
    WHERE error IS NULL AND tools IS NOT NULL
    ORDER BY server, taken_at DESC, id DESC`;
  const known = new Map<string, KnownTool>();
  const entry = (name: string) => {
    let tool = known.get(name);
    if (!tool) known.set(name, (tool = { declaredIdempotentHint: null, listedBy: [] }));
    return tool;
  };
  for (const name of Object.keys(config.tools)) entry(name);
  for (const { server, tools } of rows) {
    if (!Array.isArray(tools)) continue;
    for (const listed of tools as ListedTool[]) {
      if (typeof listed?.name !== "string" || listed.name === "") continue;
      const tool = entry(listed.name);
      if (!tool.listedBy.includes(server)) tool.listedBy.push(server);
      const declared = declaredHints(listed.annotations).idempotentHint;
      // A claim made by any server is the one that matters: a host may retry on it.
      if (declared === true || (declared === false && tool.declaredIdempotentHint === null))
        tool.declaredIdempotentHint = declared;
    }
  }
  return known;
}
