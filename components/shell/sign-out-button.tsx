"use client";

import { Button } from "@/components/ui/button";

const CALLBACK_URL = "/sign-in";

/**
 * next-auth's own sign-out exchange, without next-auth/react on every page (its client is ~8 KB
 * gzip of compiled helpers; this button is all the console used of it outside sign-in): the CSRF
 * token, the POST that ends the session (and its console_session row), then the page it names.
 */
async function signOut(): Promise<void> {
  const { csrfToken } = (await (await fetch("/api/auth/csrf")).json()) as { csrfToken: string };
  const response = await fetch("/api/auth/signout", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, callbackUrl: CALLBACK_URL, json: "true" }),
  });
  const { url } = (await response.json()) as { url?: string };
  window.location.href = url ?? CALLBACK_URL;
}

export function SignOutButton() {
  return (
    <Button variant="secondary" size="md" className="shrink-0 px-2.5 py-1 font-normal" onClick={() => void signOut()}>
      Sign out
    </Button>
  );
}
