import "server-only";
import { getServerSession } from "next-auth";
import { redirect } from "next/navigation";
import type { Actor } from "@/lib/auth/actor";
import { authOptions } from "@/lib/auth/auth-options";
import { can, type Action } from "@/lib/auth/permissions";
import { loadActiveUser } from "@/lib/auth/users";
import { getDb } from "@/lib/db/client";

/** The signed-in person, with role and tenants read from the database on every call. */
export async function getSessionActor(): Promise<Actor | null> {
  const session = await getServerSession(authOptions);
  const id = session?.user?.id;
  if (!id) return null;
  return loadActiveUser(getDb(), id);
}

/** For server components and server actions: sign-in when anonymous, /forbidden when the role may not. */
export async function requirePageActor(action: Action, returnTo = "/"): Promise<Actor> {
  const actor = await getSessionActor();
  if (!actor) redirect(`/sign-in?callbackUrl=${encodeURIComponent(returnTo)}`);
  if (!can(actor.role, action)) redirect(`/forbidden?action=${encodeURIComponent(action)}`);
  return actor;
}
