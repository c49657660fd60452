import "server-only";
import type { Actor } from "@/lib/identity/actor";
import { canWithScope, type Action } from "@/lib/auth/permissions";

/**
 * A read-only route's work started beside its token check instead of after it (issue #31,
 * item 2): the read runs as the actor the token's previous passing check found, and its answer
 * is used only if this request's own check passes with that same actor. Nothing is trusted from
 * memory: every request still waits for its check, and a revoked or expired token, or one whose
 * role or tenants changed, gets the check's answer (the started read is dropped, or redone as the
 * actor found). See docs/architecture.md, "Authentication beside the read".
 */
export type Overlap<T> = {
  /** The actor the read was started as. */
  actor: Actor;
  /** The read's outcome; never rejects (an unhandled rejection must not follow a dropped read). */
  outcome: Promise<{ ok: true; value: T } | { ok: false; error: unknown }>;
};

// Token hash → the actor its last passing check found. Bounded: an entry is only a guess to start with.
const lastActors = new Map<string, Actor>();
const MAX_REMEMBERED = 1_000;

/** Starts `read` as the token's last actor when it may do `action`; null when there is none to start as. `tokenHash`: hashToken's. */
export function startBesideCheck<T>(
  tokenHash: string,
  action: Action,
  read: (actor: Actor) => Promise<T>,
): Overlap<T> | null {
  const actor = lastActors.get(tokenHash);
  if (!actor || !canWithScope(actor.role, actor.scope, action)) return null;
  const outcome = read(actor).then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
  return { actor, outcome };
}

/** What this request's check found: the next request with the token starts as it, or not at all. */
export function recordCheck(tokenHash: string, actor: Actor | null): void {
  lastActors.delete(tokenHash); // re-inserted last: the map's order is its age
  if (!actor) return;
  if (lastActors.size >= MAX_REMEMBERED) lastActors.delete(lastActors.keys().next().value!);
  lastActors.set(tokenHash, actor);
}

/** The same identity, role, scope and tenants: a read as one is the read as the other. */
export function sameActor(a: Actor, b: Actor): boolean {
  return (
    a.kind === b.kind &&
    a.id === b.id &&
    a.name === b.name &&
    a.displayName === b.displayName &&
    a.role === b.role &&
    (a.scope ?? "full") === (b.scope ?? "full") &&
    a.tenants.length === b.tenants.length &&
    a.tenants.every((tenant, i) => tenant === b.tenants[i])
  );
}
