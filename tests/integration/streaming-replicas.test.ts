import pg from "pg";
import { afterAll, describe, expect, inject, it } from "vitest";
import { startTestReplica } from "../helpers/replica";
import { streamingReplicas, streamingReplicasLine } from "@/tools/bench/streaming-replicas";

// The bench reports say when a standby streams from the server: it receives every write of the run.
describe("the streaming replicas a bench report names", () => {
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  afterAll(() => client.end());

  it("lists the test replica streaming from this server", async () => {
    startTestReplica(inject("databaseUrl"));
    await client.connect();
    const replicas = await streamingReplicas(client);
    expect(replicas.length).toBeGreaterThan(0);
    expect(replicas.some((r) => r.includes("127.0.0.1") && r.includes("(streaming)"))).toBe(true);
    expect(streamingReplicasLine(replicas)).toMatch(/^streaming replicas: \d+ — .*received every write/);
  });

  it("says none when there is none", () => {
    expect(streamingReplicasLine([])).toBe("streaming replicas: none");
  });
});
