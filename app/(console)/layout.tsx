import type { ReactNode } from "react";
import { redirect } from "next/navigation";
import { NuqsAdapter } from "nuqs/adapters/next/app";
import { AppShell } from "@/components/shell/app-shell";
import { isDemoMode } from "@/lib/auth/demo-mode";
import { getSessionActor } from "@/lib/auth/session-actor";

// Pages re-check their own permission; this only builds the frame around them.
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const actor = await getSessionActor();
  if (!actor) redirect("/sign-in");
  return (
    <AppShell user={{ name: actor.displayName, email: actor.name, role: actor.role, tenants: actor.tenants }} demo={isDemoMode()}>
      <NuqsAdapter>{children}</NuqsAdapter>
    </AppShell>
  );
}
