import "server-only";
import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import { cache } from "react";
import type { Actor } from "@/lib/identity/actor";
import { authOptions } from "@/lib/auth/auth-options";
import { logDeniedRequest } from "@/lib/audit/log-denied";
import { checkSession, type SessionCheck } from "@/lib/auth/console-sessions";
import { can, type Action } from "@/lib/auth/permissions";
import { sessionPolicy } from "@/lib/auth/session-policy";
import { getDb } from "@/lib/db/client";

/**
 * The session behind this request's cookie: null without one; otherwise the console_session row's
 * verdict, re-read on every request so that a role change, sign-out, timeout or disable applies at
 * once. Cached per request (React `cache`): the layout and the page ask once between them.
 */
export const readSession = cache(async (): Promise<SessionCheck | null> => {
  const session = await getServerSession(authOptions);
  if (!session?.user?.id) return null;
  // A cookie from before server-side sessions (no sid) counts as ended.
  if (!session.sid) return { ok: false, reason: "unknown" };
  return checkSession(getDb(), session.sid, sessionPolicy());
});

/** The signed-in person, or null. */
export async function getSessionActor(): Promise<Actor | null> {
  const check = await readSession();
  return check?.ok ? check.actor : null;
}

const ENDED_CODES = {
  idle: "SessionIdle",
  expired: "SessionExpired",
  user_disabled: "NotAllowed",
  signed_out: "SessionRequired",
  unknown: "SessionRequired",
} as const;

/** For server components: sign-in (saying why a session ended) when anonymous, /forbidden when the role may not. */
export async function requirePageActor(action: Action, returnTo = "/"): Promise<Actor> {
  const check = await readSession();
  if (!check?.ok) {
    const error = check ? `&error=${ENDED_CODES[check.reason]}` : "";
    redirect(`/sign-in?callbackUrl=${encodeURIComponent(returnTo)}${error}`);
  }
  if (!can(check.actor.role, action)) {
    await logDeniedRequest(getDb(), {
      actor: check.actor,
      status: 403,
      code: "forbidden",
      message: `Your role (${check.actor.role}) may not ${action}.`,
      method: "GET",
      path: returnTo,
      permission: action,
    });
    redirect(`/forbidden?action=${encodeURIComponent(action)}`);
  }
  return check.actor;
}
