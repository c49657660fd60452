import type { ReactNode } from "react";
import { NuqsAdapter } from "nuqs/adapters/next/app";
import { AppShell } from "@/components/shell/app-shell";
import { isDemoMode } from "@/lib/auth/demo-mode";
import { getSessionActor } from "@/lib/auth/session-actor";

// Only builds the frame. Every page checks the caller itself (requirePageActor) and sends a
// caller without a live session to sign-in with where they were going and why; the layout
// does not know the path, so it leaves that to the page and shows no frame.
export default async function ConsoleLayout({ children }: { children: ReactNode }) {
  const actor = await getSessionActor();
  if (!actor) return children;
  return (
    <AppShell
      user={{ name: actor.displayName, email: actor.name, role: actor.role, tenants: actor.tenants }}
      demo={isDemoMode()}
    >
      <NuqsAdapter>{children}</NuqsAdapter>
    </AppShell>
  );
}
