import "server-only";
import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import type { ListedTool } from "@/lib/tool-listings/annotation-types";

type Tx = Pick<Prisma.TransactionClient, "toolSnapshot">;

export type SnapshotRow = {
  id: string;
  server: string;
  takenAt: string;
  source: "live" | "upload";
  tools: ListedTool[] | null;
  error: string | null;
  takenBy: string;
};

export async function insertSnapshot(
  tx: Tx,
  snapshot: { server: string; source: "live" | "upload"; takenBy: string; takenAt?: Date } & (
    { tools: ListedTool[] } | { error: string }
  ),
): Promise<string> {
  const row = await tx.toolSnapshot.create({
    select: { id: true },
    data: {
      server: snapshot.server,
      source: snapshot.source,
      takenBy: snapshot.takenBy,
      ...(snapshot.takenAt ? { takenAt: snapshot.takenAt } : {}),
      ...("tools" in snapshot
        ? { tools: snapshot.tools as unknown as Prisma.InputJsonValue }
        : { error: snapshot.error }),
    },
  });
  return String(row.id);
}

/** Per server: its newest attempt (ok or not), and its two newest good listings (for the diff). */
export type ServerSnapshots = {
  latestAttempt: SnapshotRow | null;
  latestGood: SnapshotRow | null;
  previousGood: SnapshotRow | null;
};

export async function loadServerSnapshots(db: Db, servers: string[]): Promise<Map<string, ServerSnapshots>> {
  const result = new Map<string, ServerSnapshots>();
  // One indexed probe per server on (server, taken_at DESC): the number of snapshots never matters.
  await Promise.all(
    servers.map(async (server) => {
      const order = [{ takenAt: "desc" as const }, { id: "desc" as const }];
      const [latestAttempt, good] = await Promise.all([
        db.toolSnapshot.findFirst({ where: { server }, orderBy: order }),
        db.toolSnapshot.findMany({ where: { server, error: null }, orderBy: order, take: 2 }),
      ]);
      result.set(server, {
        latestAttempt: latestAttempt ? toRow(latestAttempt) : null,
        latestGood: good[0] ? toRow(good[0]) : null,
        previousGood: good[1] ? toRow(good[1]) : null,
      });
    }),
  );
  return result;
}

/** Names that exist only through uploads (no config entry, not added in the UI). */
export async function loadSnapshotServerNames(db: Db): Promise<string[]> {
  const rows = await db.$queryRaw<{ server: string }[]>`SELECT DISTINCT server FROM tool_snapshot ORDER BY server`;
  return rows.map((r) => r.server);
}

function toRow(row: {
  id: bigint;
  server: string;
  takenAt: Date;
  source: string;
  tools: unknown;
  error: string | null;
  takenBy: string;
}): SnapshotRow {
  return {
    id: String(row.id),
    server: row.server,
    takenAt: row.takenAt.toISOString(),
    source: row.source === "upload" ? "upload" : "live",
    tools: Array.isArray(row.tools) ? (row.tools as ListedTool[]) : null,
    error: row.error,
    takenBy: row.takenBy,
  };
}
