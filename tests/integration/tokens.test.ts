import { describe, expect, it } from "vitest";
import { authenticateToken, createToken, hashToken, listTokens, revokeToken } from "@/lib/auth/tokens";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

const admin = systemAdmin("token-test", { id: "test" });

describe("API tokens", () => {
  const db = connectTestDb();

  it("stores only the hash, authenticates the token with its role and tenants, and audits creation", async () => {
    const { token, summary } = await createToken(db, admin, {
      name: "ci-tokens-1",
      role: "operator",
      tenants: ["acme"],
    });
    expect(token).toMatch(/^idem_[A-Za-z0-9_-]{43}$/);
    const row = await db.apiToken.findUniqueOrThrow({ where: { id: summary.id } });
    expect(row.tokenHash).toBe(hashToken(token));
    expect(JSON.stringify(row)).not.toContain(token);

    const check = await authenticateToken(db, token);
    expect(check).toEqual({
      ok: true,
      actor: {
        kind: "token",
        id: summary.id,
        name: "ci-tokens-1",
        displayName: "token ci-tokens-1",
        role: "operator",
        tenants: ["acme"],
      },
    });

    const audit = await db.auditLog.findMany({
      where: { action: "token.create", after: { path: ["id"], equals: summary.id } },
    });
    expect(audit).toHaveLength(1);
  });

  it("refuses unknown, malformed, revoked and expired tokens, each with its reason", async () => {
    expect(await authenticateToken(db, "not-a-token")).toEqual({ ok: false, reason: "malformed token" });
    expect(await authenticateToken(db, "idem_" + "x".repeat(43))).toEqual({ ok: false, reason: "unknown token" });

    const revoked = await createToken(db, admin, { name: "ci-tokens-2", role: "viewer" });
    expect((await authenticateToken(db, revoked.token)).ok).toBe(true);
    await revokeToken(db, admin, revoked.summary.id);
    expect(await authenticateToken(db, revoked.token)).toEqual({ ok: false, reason: "token revoked" });
    await expect(revokeToken(db, admin, revoked.summary.id)).rejects.toThrow(/already revoked/);

    const expired = await createToken(db, admin, {
      name: "ci-tokens-3",
      role: "viewer",
      expiresAt: new Date(Date.now() - 1000),
    });
    expect(await authenticateToken(db, expired.token)).toEqual({ ok: false, reason: "token expired" });
  });

  it("rejects a bad name or role before writing anything", async () => {
    const before = await db.apiToken.count();
    await expect(createToken(db, admin, { name: "", role: "viewer" })).rejects.toThrow(/token name/);
    // @ts-expect-error an invalid role from untyped input
    await expect(createToken(db, admin, { name: "x", role: "root" })).rejects.toThrow(/role/);
    expect(await db.apiToken.count()).toBe(before);
    expect((await listTokens(db)).length).toBe(before);
  });
});
