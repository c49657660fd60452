import "server-only";
import { readReplicaLag } from "@/lib/db/replica-lag";

/** What a page that reads from the replica says about it: only when it is further behind than database.replicaLagWarning. */
export type ReplicaLagNotice = { lagSeconds: number; bytesBehind: number };

/** One shared measurement a second (lib/db/replica-lag.ts); null without a replica, or when it is close enough. */
export async function loadReplicaLagNotice(): Promise<ReplicaLagNotice | null> {
  const lag = await readReplicaLag();
  if (!lag || lag.state !== "behind" || !lag.warn) return null;
  return { lagSeconds: Math.round(lag.lagMs / 1000), bytesBehind: lag.bytes };
}
