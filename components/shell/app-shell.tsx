import type { ReactNode } from "react";
import { HeaderLookup } from "@/components/shell/header-lookup";
import { NavLinks } from "@/components/shell/nav-links";
import { SignOutButton } from "@/components/shell/sign-out-button";

type ShellUser = { name: string; email: string; role: string; tenants: string[] };

/** The id of the page's <main>, which the skip link targets. */
export const CONTENT_ID = "content";

export function AppShell({ user, demo, children }: { user: ShellUser; demo: boolean; children: ReactNode }) {
  const scope = user.tenants.length > 0 ? user.tenants.join(", ") : "all tenants";
  return (
    // Below md the side bar becomes a top bar whose links open from a Menu button: the page gets the whole width.
    <div className="flex min-h-screen flex-col md:flex-row">
      {/* The first Tab stop: past the navigation and the search in one key. Off-screen and transparent until
          focused (transparent too, since a full-page capture draws fixed elements where the page was scrolled). */}
      <a
        href={`#${CONTENT_ID}`}
        className="fixed left-3 top-3 z-50 -translate-y-[200%] rounded-md bg-white px-3 py-2 text-sm font-medium text-slate-900 opacity-0 shadow focus:translate-y-0 focus:opacity-100"
        data-testid="skip-link"
      >
        Skip to content
      </a>
      <aside className="flex shrink-0 flex-col gap-2 bg-slate-900 px-3 py-3 md:w-52 md:gap-6 md:py-4">
        <NavLinks
          brand={
            <div className="min-w-0 px-3">
              <div className="text-base font-semibold tracking-tight text-white">Idem Console</div>
              <div className="text-xs text-slate-400">idempotency records</div>
            </div>
          }
        />
        {demo ? (
          <div className="rounded-md bg-amber-400/15 px-3 py-1 text-xs text-amber-200 md:mt-auto md:py-2">
            Demo mode: sample data, demo sign-ins.
          </div>
        ) : null}
      </aside>
      <div className="flex min-w-0 flex-1 flex-col">
        {/* Below md the search takes the first row at full width; who is signed in and Sign out share the second. */}
        <header className="flex flex-wrap items-center gap-x-4 gap-y-2 border-b border-slate-200 bg-white px-4 py-3 md:flex-nowrap md:px-6">
          <HeaderLookup />
          <div className="ml-auto flex min-w-0 items-center gap-3">
            <div className="min-w-0 text-right leading-tight">
              <div className="truncate text-sm font-medium" data-testid="user-name" title={user.email}>
                {user.name}
              </div>
              <div className="truncate text-xs text-slate-500" title={scope}>
                <span data-testid="user-role">{user.role}</span> · {scope}
              </div>
            </div>
            <SignOutButton />
          </div>
        </header>
        <main id={CONTENT_ID} tabIndex={-1} className="min-w-0 flex-1 px-4 py-4 outline-none md:px-6 md:py-6">
          {children}
        </main>
      </div>
    </div>
  );
}
