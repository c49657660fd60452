import "server-only";
import { randomUUID } from "node:crypto";
import type { Actor } from "@/lib/identity/actor";
import { isRole } from "@/lib/identity/roles";
import { LAST_SEEN_RESOLUTION_MS, type SessionPolicy } from "@/lib/auth/session-policy";
import { writeAudit } from "@/lib/audit/write-audit";
import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import { rawQuery } from "@/lib/db/raw-query";

export type SessionEndReason = "signed_out" | "idle" | "expired" | "user_disabled";

export const SESSION_END_MESSAGES: Record<SessionEndReason, string> = {
  signed_out: "You signed out.",
  idle: "Your session ended after a while without activity. Sign in again.",
  expired: "Your session reached its maximum length. Sign in again.",
  user_disabled: "Your account was disabled.",
};

export type SessionCheck = { ok: true; actor: Actor } | { ok: false; reason: SessionEndReason | "unknown" };

type UserRow = { id: string; email: string; name: string; role: string; tenants: string[]; disabledAt: Date | null };

/** The actor a console user acts as (null: a role this console does not know). */
export function actorOf(user: UserRow): Actor | null {
  if (!isRole(user.role)) return null;
  return {
    kind: "user",
    id: user.id,
    name: user.email,
    displayName: user.name,
    role: user.role,
    tenants: user.tenants,
  };
}

/** Opens a session row at sign-in (audited); its id goes into the signed cookie. */
export async function startSession(db: Db, userId: string, userAgent: string | null): Promise<string> {
  const id = randomUUID();
  await db.$transaction(async (tx) => {
    const session = await tx.consoleSession.create({
      data: { id, userId, userAgent: userAgent?.slice(0, 300) ?? null },
      include: { user: true },
    });
    const actor = actorOf(session.user);
    if (actor)
      await writeAudit(tx, actor, { action: "session.start", evidence: { session: id, userAgent: session.userAgent } });
  });
  return id;
}

type SessionRow = {
  createdAt: Date;
  lastSeenAt: Date;
  endedAt: Date | null;
  endedReason: string | null;
  user: UserRow;
};

/**
 * Every signed-in page and its prefetches start here: one prepared statement on the client's pool
 * (rawQuery), not Prisma's query compiler with a second query for the include (docs/bench.md,
 * "Issue #31, fifth pass").
 */
async function findSession(db: Db, sessionId: string): Promise<SessionRow | null> {
  const [row] = await rawQuery<Omit<SessionRow, "user"> & UserRow>(
    db,
    Prisma.sql`SELECT s.created_at AS "createdAt", s.last_seen_at AS "lastSeenAt", s.ended_at AS "endedAt",
      s.ended_reason AS "endedReason", u.id, u.email, u.name, u.role, u.tenants, u.disabled_at AS "disabledAt"
      FROM console_session s JOIN console_user u ON u.id = s.user_id WHERE s.id = ${sessionId}`,
    { prepareAs: "session_check" },
  );
  if (!row) return null;
  const { createdAt, lastSeenAt, endedAt, endedReason, ...user } = row;
  return { createdAt, lastSeenAt, endedAt, endedReason, user };
}

/**
 * The actor behind a session id, re-read on every request so that sign-out, a timeout, a role
 * change or a disabled user applies at once. Ending a session for a timeout is written (and
 * audited) the first time a request finds it over the limit.
 */
export async function checkSession(
  db: Db,
  sessionId: string,
  policy: SessionPolicy,
  now = new Date(),
): Promise<SessionCheck> {
  const session = await findSession(db, sessionId);
  if (!session) return { ok: false, reason: "unknown" };
  if (session.endedAt) return { ok: false, reason: (session.endedReason as SessionEndReason | null) ?? "signed_out" };
  const reason: SessionEndReason | null = session.user.disabledAt
    ? "user_disabled"
    : now.getTime() - session.createdAt.getTime() >= policy.maxAgeMs
      ? "expired"
      : now.getTime() - session.lastSeenAt.getTime() >= policy.idleMs
        ? "idle"
        : null;
  if (reason) {
    await endSession(db, sessionId, reason);
    return { ok: false, reason };
  }
  const actor = actorOf(session.user);
  if (!actor) return { ok: false, reason: "unknown" };
  if (now.getTime() - session.lastSeenAt.getTime() >= LAST_SEEN_RESOLUTION_MS) {
    // Only if still open: a sign-out racing this request must win.
    await db.consoleSession.updateMany({ where: { id: sessionId, endedAt: null }, data: { lastSeenAt: now } });
  }
  return { ok: true, actor };
}

/** Ends one session (idempotent: the first reason stays), with its audit row. */
export async function endSession(db: Db, sessionId: string, reason: SessionEndReason): Promise<void> {
  await db.$transaction(async (tx) => {
    const ended = await tx.consoleSession.updateManyAndReturn({
      where: { id: sessionId, endedAt: null },
      data: { endedAt: new Date(), endedReason: reason },
      include: { user: true },
    });
    const session = ended[0];
    const actor = session ? actorOf(session.user) : null;
    if (session && actor)
      await writeAudit(tx, actor, {
        action: "session.end",
        reason,
        evidence: { session: sessionId, startedAt: session.createdAt.toISOString() },
      });
  });
}

/** Ends every open session of a user, inside the caller's transaction (disable). */
export async function endUserSessions(
  tx: Prisma.TransactionClient,
  userId: string,
  reason: SessionEndReason,
): Promise<number> {
  const { count } = await tx.consoleSession.updateMany({
    where: { userId, endedAt: null },
    data: { endedAt: new Date(), endedReason: reason },
  });
  return count;
}
