import { describe, expect, it, vi } from "vitest";

// The production server holds lib/db/prisma.ts once per bundle: the background work (started from
// instrumentation.ts) made the console's client in its copy, and the routes asked theirs for its
// pool; they found none, and every hot-path statement went through Prisma, never prepared.
describe("what lib/db/prisma knows of a client, across copies of the module", () => {
  it("a client made in one copy has its pool, its preparing and its fault handling in another", async () => {
    vi.resetModules();
    const made = await import("@/lib/db/prisma");
    vi.resetModules();
    const asked = await import("@/lib/db/prisma");
    expect(asked).not.toBe(made);
    const client = made.createPrismaClient("postgresql://nobody@127.0.0.1:1/none", 1);
    try {
      made.prepareStatementsOn(client);
      const wrapper = {};
      const onFault = async () => Promise.reject(new Error("fault"));
      made.sharePool(wrapper, client, onFault);
      expect(asked.rawPoolOf(client)).toBeDefined();
      expect(asked.rawPoolOf(client)).toBe(made.rawPoolOf(client));
      expect(asked.preparesStatements(client)).toBe(true);
      expect(asked.rawPoolOf(wrapper as never)).toBe(made.rawPoolOf(client));
      expect(asked.rawFaultHandlerOf(wrapper as never)).toBe(onFault);
    } finally {
      await client.$disconnect();
    }
  });
});
