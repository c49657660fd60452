"use client";

import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { useHydrated } from "@/components/ui/use-hydrated";
import { Button } from "@/components/ui/button";
import { signInErrorMessage } from "@/lib/auth/sign-in-messages";
import { Input } from "@/components/ui/input";

type Option = { id: string; name: string; kind: "oauth" | "demo" };
type DemoAccount = { email: string; name: string; role: string; tenants: string[] };

export function SignInForm(props: {
  options: Option[];
  demoAccounts: DemoAccount[];
  demoPassword: string | null;
  callbackUrl: string;
  error: string | null;
}) {
  const [busy, setBusy] = useState(false);
  // An OAuth failure arrives in the URL (?error=…); a password failure is answered in place, so the
  // form keeps the e-mail typed and nothing reloads.
  const [error, setError] = useState(props.error);
  // Until hydration a click would submit the form natively, without the sign-in request. The hook
  // runs on every render: `busy || !useHydrated()` skipped it once busy (React error #300).
  const hydrated = useHydrated();
  const disabled = busy || !hydrated;
  const demo = props.options.some((o) => o.kind === "demo");

  async function signInWithPassword(email: string, password: string, form?: HTMLFormElement) {
    setBusy(true);
    const result = await signIn("demo", { email, password, callbackUrl: props.callbackUrl, redirect: false });
    if (result?.ok && !result.error) {
      // A full load, as next-auth's own redirect does: the shell renders with the new session cookie.
      window.location.assign(result.url ?? props.callbackUrl);
      return;
    }
    setError(signInErrorMessage(result?.error ?? "") ?? signInErrorMessage("unknown"));
    const passwordInput = form?.elements.namedItem("password");
    if (passwordInput instanceof HTMLInputElement) {
      passwordInput.value = "";
      passwordInput.focus();
    }
    setBusy(false);
  }

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    void signInWithPassword(String(data.get("email") ?? ""), String(data.get("password") ?? ""), form);
  }

  return (
    <div className="rounded-lg border border-slate-200 bg-white p-6 shadow-sm">
      {error ? (
        <p
          role="alert"
          data-testid="sign-in-error"
          className="mb-4 rounded-md bg-red-50 px-3 py-2 text-sm text-red-700"
        >
          {error}
        </p>
      ) : null}

      {props.options
        .filter((o) => o.kind === "oauth")
        .map((o) => (
          <Button
            variant="primary"
            size="md"
            className="mb-2 w-full py-2"
            key={o.id}
            disabled={disabled}
            onClick={() => void signIn(o.id, { callbackUrl: props.callbackUrl })}
          >
            Continue with {o.name}
          </Button>
        ))}

      {demo ? (
        <>
          <form method="post" onSubmit={onSubmit} className="flex flex-col gap-3">
            <label className="text-sm">
              <span className="mb-1 block text-slate-700">Email</span>
              <Input
                name="email"
                type="email"
                required
                autoComplete="username"
                className="h-auto w-full bg-transparent px-3 py-1.5"
              />
            </label>
            <label className="text-sm">
              <span className="mb-1 block text-slate-700">Password</span>
              <Input
                name="password"
                type="password"
                required
                autoComplete="current-password"
                className="h-auto w-full bg-transparent px-3 py-1.5"
              />
            </label>
            <Button variant="primary" size="md" className="py-2" type="submit" disabled={disabled}>
              Sign in
            </Button>
          </form>
          {props.demoAccounts.length > 0 && props.demoPassword ? (
            <div className="mt-5 border-t border-slate-200 pt-4">
              <p className="mb-2 text-xs text-slate-500">
                Demo accounts (password <code className="font-mono">{props.demoPassword}</code>):
              </p>
              <div className="flex flex-col gap-1.5">
                {props.demoAccounts.map((account) => (
                  <Button
                    variant="secondary"
                    size="md"
                    className="flex-wrap justify-between gap-x-2 whitespace-normal border-slate-200 text-left font-normal"
                    key={account.email}
                    disabled={disabled}
                    data-testid={`demo-sign-in-${account.email}`}
                    onClick={() => void signInWithPassword(account.email, props.demoPassword ?? "")}
                  >
                    <span className="min-w-0 [overflow-wrap:anywhere]">{account.email}</span>
                    <span className="ml-auto text-xs text-slate-500">
                      {account.role}
                      {account.tenants.length ? ` · ${account.tenants.join(", ")}` : ""}
                    </span>
                  </Button>
                ))}
              </div>
            </div>
          ) : null}
        </>
      ) : null}

      {props.options.length === 0 ? (
        <p className="text-sm text-slate-600">
          No sign-in method is configured. Set OIDC_* or GITHUB_* variables (README, Configuration).
        </p>
      ) : null}
    </div>
  );
}
