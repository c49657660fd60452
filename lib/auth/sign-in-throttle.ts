import "server-only";
import type { Actor } from "@/lib/identity/actor";
import { writeAudit } from "@/lib/audit/write-audit";
import type { Db } from "@/lib/db/prisma";

/**
 * The sign-in throttle, in the database so it holds across console instances. Failures are counted
 * over a sliding window per account (the e-mail typed) and per client address: from the third
 * failure each attempt waits longer (0.5 s, 1 s, 2 s, capped at 4 s) before it is answered; at ten
 * failures of an account, or fifty from one address, attempts are refused — the right password too —
 * until the window since the latest failure has passed. Refused attempts are audited but not
 * counted, so a locked account opens again 15 minutes after the guessing stops.
 */
export const SIGN_IN_THROTTLE = {
  windowMs: 15 * 60_000,
  slowAfter: 3,
  refuseAccountAt: 10,
  refuseClientAt: 50,
  baseDelayMs: 500,
  maxDelayMs: 4_000,
} as const;

export type ThrottleState = {
  accountFailures: number;
  clientFailures: number;
  delayMs: number;
  refusedUntil: Date | null;
};

/** Who a failed sign-in is recorded as: nobody has signed in yet. */
const SIGN_IN: Actor = {
  kind: "system",
  id: "sign-in",
  name: "sign-in",
  displayName: "sign-in",
  role: "viewer",
  tenants: [],
};

export function accountOf(email: string): string {
  return email.trim().toLowerCase().slice(0, 320);
}

export async function throttleState(db: Db, account: string, client: string, now = new Date()): Promise<ThrottleState> {
  const since = new Date(now.getTime() - SIGN_IN_THROTTLE.windowMs);
  const rows = await db.$queryRaw<
    { account_failures: number; client_failures: number; account_latest: Date | null; client_latest: Date | null }[]
  >`
    SELECT (SELECT count(*)::int FROM sign_in_failure WHERE account = ${account} AND at > ${since}) AS account_failures,
           (SELECT count(*)::int FROM sign_in_failure WHERE client = ${client} AND at > ${since}) AS client_failures,
           (SELECT max(at) FROM sign_in_failure WHERE account = ${account} AND at > ${since}) AS account_latest,
           (SELECT max(at) FROM sign_in_failure WHERE client = ${client} AND at > ${since}) AS client_latest`;
  const row = rows[0]!;
  const locked = [
    row.account_failures >= SIGN_IN_THROTTLE.refuseAccountAt ? row.account_latest : null,
    row.client_failures >= SIGN_IN_THROTTLE.refuseClientAt ? row.client_latest : null,
  ].filter((d): d is Date => d !== null);
  const refusedUntil =
    locked.length > 0 ? new Date(Math.max(...locked.map((d) => d.getTime())) + SIGN_IN_THROTTLE.windowMs) : null;
  const over = Math.max(row.account_failures, row.client_failures) - SIGN_IN_THROTTLE.slowAfter;
  const delayMs = over < 0 ? 0 : Math.min(SIGN_IN_THROTTLE.maxDelayMs, SIGN_IN_THROTTLE.baseDelayMs * 2 ** over);
  return { accountFailures: row.account_failures, clientFailures: row.client_failures, delayMs, refusedUntil };
}

export type SignInFailure = { provider: string; account: string; client: string; reason: string; counted: boolean };

/** Audits a failed sign-in as auth.sign_in_failed and, when it counts, adds it to the throttle's window — in one transaction. */
export async function recordSignInFailure(db: Db, failure: SignInFailure, now = new Date()): Promise<void> {
  await db.$transaction(async (tx) => {
    if (failure.counted)
      await tx.signInFailure.create({ data: { account: failure.account, client: failure.client, at: now } });
    await writeAudit(tx, SIGN_IN, {
      action: "auth.sign_in_failed",
      reason: failure.reason,
      evidence: { provider: failure.provider, account: failure.account, client: failure.client },
    });
  });
}

/** A good sign-in forgets its account's failures (the client's stay: other accounts may be guessed from it). */
export async function clearAccountFailures(db: Db, account: string): Promise<void> {
  await db.signInFailure.deleteMany({ where: { account } });
}
