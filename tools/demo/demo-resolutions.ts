import "server-only";
import type { IdemConfig } from "@/lib/config/schema";
import type { Db } from "@/lib/db/prisma";
import type { Actor } from "@/lib/identity/actor";
import { actorOf } from "@/lib/auth/console-sessions";
import { findOldestStuckClaim } from "@/lib/records/stuck-claims";
import { readRowVersion } from "@/lib/records/visible-records";
import { askProcessor } from "@/lib/resolve/ask-processor";
import { resolveRecord, FORCE_RELEASE_CONFIRMATION } from "@/lib/resolve/resolve-record";

/** The operator's tickets, one per tenant: each clears that tenant's oldest stuck charge as the processor says. */
const OPERATOR_TICKETS = [
  { tenant: "acme", reason: "ticket 4411: customer asked about a charge stuck in progress" },
  { tenant: "globex", reason: "ticket 4418: checkout retried after a timeout; checked with the processor" },
  { tenant: "initech", reason: "ticket 4423: finance asked why an order shows no receipt" },
] as const;

const FORCED_REASON = "mail service log: no receipt e-mail was sent for this charge";

/**
 * A first demo start's work of its people (the demo accounts must exist): Omar, the operator,
 * asks the processor about three tenants' oldest stuck charges and completes or releases each as
 * it answers; Ada, the admin, force-releases the oldest stuck receipt e-mail, which has no
 * processor to ask. All through the console's own resolve, audited with tenant and reason, so the
 * Audit page, the ref fates and "resolved by" show real work from the first look.
 * Returns one line per resolution, for the launcher to print.
 */
export async function resolveDemoClaims(db: Db, config: IdemConfig, now = new Date()): Promise<string[]> {
  const [operator, admin] = await Promise.all([demoActor(db, "operator@demo.test"), demoActor(db, "admin@demo.test")]);
  if (!operator || !admin) return [];
  const done: string[] = [];
  for (const ticket of OPERATOR_TICKETS) {
    const claim = await findOldestStuckClaim(db, operator, config, now, { tenant: ticket.tenant, tool: "charge_card" });
    if (!claim) continue;
    const check = await resolveAsAnswered(db, config, operator, claim.key, ticket.reason);
    if (check) done.push(`${check} ${claim.key.slice(0, 12)} (charge_card, ${ticket.tenant}) as ${operator.name}`);
  }
  const email = await findOldestStuckClaim(db, admin, config, now, { tool: "send_receipt_email" });
  if (email) {
    const forced = await resolveRecord(db, config, admin, email.key, {
      action: "release",
      reason: FORCED_REASON,
      expectedUpdatedAt: await readRowVersion(db, admin, email.key),
      force: true,
      confirm: FORCE_RELEASE_CONFIRMATION,
    });
    if (forced.ok)
      done.push(`force-released ${email.key.slice(0, 12)} (send_receipt_email, ${email.tenant}) as ${admin.name}`);
  }
  return done;
}

/** Asked first, as the operator would: complete if taken, release if not taken; unknown leaves the claim (null). */
async function resolveAsAnswered(db: Db, config: IdemConfig, actor: Actor, key: string, reason: string) {
  const { outcome } = await askProcessor(config, { key, tool: "charge_card" });
  if (outcome === "unknown") return null;
  const action = outcome === "taken" ? "complete" : "release";
  const expectedUpdatedAt = await readRowVersion(db, actor, key);
  const resolved = await resolveRecord(db, config, actor, key, { action, reason, expectedUpdatedAt });
  return resolved.ok ? (action === "complete" ? "completed" : "released") : null;
}

async function demoActor(db: Db, email: string): Promise<Actor | null> {
  const user = await db.consoleUser.findUnique({ where: { email } });
  return user && !user.disabledAt ? actorOf(user) : null;
}
