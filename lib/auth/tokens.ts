import "server-only";
import { createHash, randomBytes, randomUUID } from "node:crypto";
import type { Actor } from "@/lib/identity/actor";
import type { Role } from "@/lib/identity/roles";
import { isRole } from "@/lib/identity/roles";
import { isTokenScope, type TokenScope } from "@/lib/auth/permissions";
import { writeAudit } from "@/lib/audit/write-audit";
import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import { rawQuery } from "@/lib/db/raw-query";
import { UserError } from "@/lib/errors/user-error";

const TOKEN_PREFIX = "idem_";

export type TokenSummary = {
  id: string;
  name: string;
  prefix: string;
  role: Role;
  scope: TokenScope;
  tenants: string[];
  createdBy: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

/** Creates a bearer token. The token is returned once; only its sha256 is stored. */
export async function createToken(
  db: Db,
  actor: Actor,
  input: { name: string; role: Role; scope?: TokenScope; tenants?: string[]; expiresAt?: Date | null },
): Promise<{ token: string; summary: TokenSummary }> {
  const name = input.name.trim();
  if (!/^[\w .:@-]{1,100}$/.test(name))
    throw new UserError("token name: use 1-100 letters, digits, spaces or _ . : @ -");
  if (!isRole(input.role))
    throw new UserError(`role: expected viewer, operator or admin (got ${JSON.stringify(input.role)})`);
  const scope = input.scope ?? "full";
  if (!isTokenScope(scope)) throw new UserError(`scope: expected full or metrics (got ${JSON.stringify(scope)})`);
  const token = TOKEN_PREFIX + randomBytes(32).toString("base64url");
  const row = await db.$transaction(async (tx) => {
    const created = await tx.apiToken.create({
      data: {
        id: randomUUID(),
        name,
        tokenHash: hashToken(token),
        prefix: token.slice(0, TOKEN_PREFIX.length + 6),
        role: input.role,
        scope,
        tenants: input.tenants ?? [],
        createdBy: actor.name,
        expiresAt: input.expiresAt ?? null,
      },
    });
    await writeAudit(tx, actor, {
      action: "token.create",
      after: { id: created.id, name, role: input.role, scope, tenants: created.tenants, prefix: created.prefix },
    });
    return created;
  });
  return { token, summary: toSummary(row) };
}

export async function listTokens(db: Db): Promise<TokenSummary[]> {
  const rows = await db.apiToken.findMany({ orderBy: { createdAt: "desc" } });
  return rows.map(toSummary);
}

/** Revokes by id or by the displayed prefix. Takes effect on the next request. */
export async function revokeToken(db: Db, actor: Actor, idOrPrefix: string): Promise<TokenSummary> {
  return db.$transaction(async (tx) => {
    const matches = await tx.apiToken.findMany({
      where: { OR: [{ id: idOrPrefix }, { prefix: idOrPrefix }, { name: idOrPrefix }] },
    });
    if (matches.length === 0) throw new UserError(`No token with id, prefix or name ${JSON.stringify(idOrPrefix)}.`);
    if (matches.length > 1)
      throw new UserError(`${matches.length} tokens match ${JSON.stringify(idOrPrefix)}; revoke by id.`);
    const found = matches[0]!;
    if (found.revokedAt)
      throw new UserError(
        `Token ${found.prefix} (${found.name}) was already revoked at ${found.revokedAt.toISOString()}.`,
      );
    const revoked = await tx.apiToken.update({ where: { id: found.id }, data: { revokedAt: new Date() } });
    await writeAudit(tx, actor, {
      action: "token.revoke",
      before: { id: found.id, name: found.name, prefix: found.prefix, role: found.role },
    });
    return toSummary(revoked);
  });
}

export type TokenRow = {
  id: string;
  name: string;
  role: string;
  scope: string;
  tenants: string[];
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
};

/** The token's row by its hash: one statement text for the check alone and for a read that carries it. */
export function tokenRowQuery(tokenHash: string): Prisma.Sql {
  return Prisma.sql`SELECT id, name, role, scope, tenants, expires_at AS "expiresAt", last_used_at AS "lastUsedAt",
      revoked_at AS "revokedAt" FROM api_token WHERE token_hash = ${tokenHash}`;
}

/**
 * Every bearer request starts here, so it skips Prisma's query compiler (rawQuery: the client's own
 * pg pool, the unique index on token_hash, one statement either way): the check's median went from
 * 1.1–1.4 ms to 0.7 ms inside the server (docs/bench.md, "Floors").
 */
async function findTokenByHash(db: Db, tokenHash: string): Promise<TokenRow | null> {
  const [row] = await rawQuery<TokenRow>(db, tokenRowQuery(tokenHash), { prepareAs: "token_check" });
  return row ?? null;
}

export type TokenCheck = { ok: true; actor: Actor } | { ok: false; reason: string };

/**
 * Resolves a presented bearer token to an actor, or says why it is refused. `carried`: the token's
 * row as a read on the primary found it in its own statement (lib/auth/carried-token-check.ts);
 * undefined: read it here.
 */
export async function authenticateToken(db: Db, token: string, carried?: TokenRow | null): Promise<TokenCheck> {
  if (!token.startsWith(TOKEN_PREFIX) || token.length > 200) return { ok: false, reason: "malformed token" };
  const row = carried !== undefined ? carried : await findTokenByHash(db, hashToken(token));
  if (!row) return { ok: false, reason: "unknown token" };
  if (row.revokedAt) return { ok: false, reason: "token revoked" };
  if (row.expiresAt && row.expiresAt <= new Date()) return { ok: false, reason: "token expired" };
  if (!isRole(row.role)) return { ok: false, reason: "token has an unknown role" };
  if (!isTokenScope(row.scope)) return { ok: false, reason: "token has an unknown scope" };
  // Best effort and rare enough to write: at most once a minute per token.
  if (!row.lastUsedAt || Date.now() - row.lastUsedAt.getTime() > 60_000) {
    void db.apiToken.update({ where: { id: row.id }, data: { lastUsedAt: new Date() } }).catch(() => {});
  }
  return {
    ok: true,
    actor: {
      kind: "token",
      id: row.id,
      name: row.name,
      displayName: `token ${row.name}`,
      role: row.role,
      tenants: row.tenants,
      ...(row.scope === "metrics" ? { scope: "metrics" as const } : {}),
    },
  };
}

function toSummary(row: {
  id: string;
  name: string;
  prefix: string;
  role: string;
  scope: string;
  tenants: string[];
  createdBy: string;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}): TokenSummary {
  // An unknown scope reads as the narrowest one.
  return {
    ...row,
    role: isRole(row.role) ? row.role : "viewer",
    scope: isTokenScope(row.scope) ? row.scope : "metrics",
  };
}
