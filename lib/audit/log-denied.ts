import "server-only";
import type { Actor } from "@/lib/identity/actor";
import type { ErrorCode } from "@/lib/errors/error-codes";
import { actorLabel } from "@/lib/audit/write-audit";
import type { Db } from "@/lib/db/prisma";

export type DeniedRequest = {
  /** Who asked, when known (a signed-in user or a valid token); null for a refused credential. */
  actor: Actor | null;
  /** For a refused bearer token: its first characters (never the secret), so repeats can be traced. */
  tokenPrefix?: string | null;
  /** 401 refused credential, 403 role or cross-site origin. */
  status: 401 | 403;
  code: ErrorCode;
  message: string;
  method: string;
  path: string;
  permission?: string | null;
};

/**
 * Writes an `access.denied` audit row: someone used a credential and was refused. Anonymous
 * requests with no credential at all are not logged (the proxy answers those, and every
 * crawler would fill the log). The row is written on its own: nothing else changed. A failure
 * to write it must not change the answer the caller gets, so it is reported and swallowed.
 */
export async function logDeniedRequest(db: Db, denied: DeniedRequest): Promise<void> {
  try {
    await db.auditLog.create({
      data: {
        actor: denied.actor ? actorLabel(denied.actor) : `token:${denied.tokenPrefix ?? "?"}`,
        actorRole: denied.actor?.role ?? "none",
        action: "access.denied",
        reason: denied.message,
        evidence: {
          status: denied.status,
          code: denied.code,
          method: denied.method,
          path: denied.path.slice(0, 500),
          permission: denied.permission ?? null,
        },
      },
    });
  } catch (error) {
    console.error("[audit] could not log a denied request:", error instanceof Error ? error.message : error);
  }
}

/** The visible start of a presented bearer token (idem_ + 6 characters), or a fixed label. */
export function tokenPrefixOf(token: string): string {
  return /^idem_[A-Za-z0-9_-]{6}/.test(token) ? token.slice(0, 11) : "(not an idem token)";
}
