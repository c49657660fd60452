import "server-only";
import { randomUUID } from "node:crypto";
import type { Actor } from "@/lib/identity/actor";
import { isRole } from "@/lib/identity/roles";
import { LAST_SEEN_RESOLUTION_MS, type SessionPolicy } from "@/lib/auth/session-policy";
import { writeAudit } from "@/lib/audit/write-audit";
import type { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";

export type SessionEndReason = "signed_out" | "idle" | "expired" | "user_disabled";

export const SESSION_END_MESSAGES: Record<SessionEndReason, string> = {
  signed_out: "You signed out.",
  idle: "Your session ended after a while without activity. Sign in again.",
  expired: "Your session reached its maximum length. Sign in again.",
  user_disabled: "Your account was disabled.",
};

export type SessionCheck = { ok: true; actor: Actor } | { ok: false; reason: SessionEndReason | "unknown" };

type UserRow = { id: string; email: string; name: string; role: string; tenants: string[]; disabledAt: Date | null };

function actorOf(user: UserRow): Actor | null {
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
  const session = await db.consoleSession.findUnique({ where: { id: sessionId }, include: { user: true } });
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
