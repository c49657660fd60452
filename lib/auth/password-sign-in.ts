import "server-only";
import type { Db } from "@/lib/db/prisma";
import { hashPassword, verifyPassword } from "@/lib/auth/passwords";
import { accountOf, clearAccountFailures, recordSignInFailure, throttleState } from "@/lib/auth/sign-in-throttle";
import { findUserByEmail } from "@/lib/auth/users";
import { env } from "@/lib/config/environment";

export type PasswordSignIn =
  | { ok: true; user: { id: string; email: string; name: string | null } }
  | { ok: false; reason: "refused" | "throttled"; retryAt?: Date };

// A hash nobody's password matches: an unknown e-mail costs the same scrypt as a known one,
// so the answer's time does not say whether an account exists.
let unknownAccountHash: Promise<string> | null = null;

/**
 * Password sign-in (the demo accounts) behind the throttle: waits, refuses while locked, audits
 * every failure, and takes the same work for an unknown e-mail as for a wrong password.
 */
export async function passwordSignIn(
  db: Db,
  input: { email: string; password: string; client: string },
  now = new Date(),
  // Tests that move the clock also skip the real wait; they read the delay from throttleState.
  wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): Promise<PasswordSignIn> {
  const account = accountOf(input.email);
  const state = await throttleState(db, account, input.client, now);
  if (state.refusedUntil) {
    await recordSignInFailure(
      db,
      {
        provider: "password",
        account,
        client: input.client,
        reason: `throttled: ${state.accountFailures} failures of this account, ${state.clientFailures} from this address in 15 min`,
        counted: false,
      },
      now,
    );
    return { ok: false, reason: "throttled", retryAt: state.refusedUntil };
  }
  if (state.delayMs > 0) await wait(state.delayMs);
  const user = await findUserByEmail(db, input.email);
  const hash = user?.passwordHash ?? (await (unknownAccountHash ??= hashPassword(`unknown-account-${Math.random()}`)));
  const matches = await verifyPassword(input.password, hash);
  if (!user || !user.passwordHash || user.disabledAt || !matches) {
    const reason = !user
      ? "no such account"
      : user.disabledAt
        ? "account disabled"
        : !user.passwordHash
          ? "no password sign-in for this account"
          : "wrong password";
    await recordSignInFailure(db, { provider: "password", account, client: input.client, reason, counted: true }, now);
    return { ok: false, reason: "refused" };
  }
  await clearAccountFailures(db, account);
  return { ok: true, user: { id: user.id, email: user.email, name: user.name } };
}

/**
 * The caller's address as the sign-in route sees it. Next.js fills X-Forwarded-For with the socket's
 * address only when the request has none, so without a trusted proxy a client can name any address:
 * the per-account count still holds; the per-address one holds behind IDEM_TRUST_PROXY=1 (the proxy's
 * own entry, the last, is used).
 */
export function clientAddressOf(headers: Record<string, string | string[] | undefined> | Headers | undefined): string {
  const raw = headers instanceof Headers ? headers.get("x-forwarded-for") : headers?.["x-forwarded-for"];
  const value = Array.isArray(raw) ? raw.join(",") : (raw ?? "");
  const entries = value
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  const chosen = env().IDEM_TRUST_PROXY ? entries.at(-1) : entries[0];
  return (chosen ?? "unknown").slice(0, 100);
}
