import { describe, expect, it } from "vitest";
import { writeAudit } from "@/lib/audit/write-audit";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

const actor = systemAdmin("audit-test", { id: "test" });

describe("audit_log", () => {
  const db = connectTestDb();

  it("accepts new rows and rejects UPDATE, DELETE and TRUNCATE", async () => {
    await writeAudit(db, actor, { action: "test.append", reason: "append-only check", key: "k-audit" });
    const row = await db.auditLog.findFirstOrThrow({ where: { action: "test.append", key: "k-audit" } });
    expect(row.actor).toBe("system:audit-test");

    await expect(db.$executeRaw`UPDATE audit_log SET reason = 'rewritten' WHERE id = ${row.id}`).rejects.toThrow(
      /append-only/,
    );
    await expect(db.$executeRaw`DELETE FROM audit_log WHERE id = ${row.id}`).rejects.toThrow(/append-only/);
    await expect(db.$executeRawUnsafe(`TRUNCATE audit_log`)).rejects.toThrow(/append-only/);

    const again = await db.auditLog.findUniqueOrThrow({ where: { id: row.id } });
    expect(again.reason).toBe("append-only check");
  });
});
