import { redirect } from "next/navigation";
import { SignInForm } from "@/components/auth/sign-in-form";
import { DEMO_PASSWORD, isDemoMode } from "@/lib/auth/demo-mode";
import { getSessionActor } from "@/lib/auth/session-actor";
import { configuredSignInOptions } from "@/lib/auth/sign-in-options";
import { listDemoAccounts } from "@/lib/pages/console-page-data";
import { safeCallbackUrl, signInErrorMessage } from "@/lib/auth/sign-in-messages";

export const metadata = { title: "Sign in" };

export default async function SignInPage({
  searchParams,
}: {
  searchParams: Promise<Record<string, string | string[] | undefined>>;
}) {
  const params = await searchParams;
  const callbackUrl = safeCallbackUrl(params.callbackUrl);
  if (await getSessionActor()) redirect(callbackUrl);
  const demoAccounts = isDemoMode() ? await listDemoAccounts() : [];
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="w-full max-w-sm">
        <div className="mb-6 text-center">
          <h1 className="text-2xl font-semibold tracking-tight">
            Idem Console<span className="sr-only"> — sign in</span>
          </h1>
          <p className="mt-1 text-sm text-slate-600">Records, stuck claims and evidence for your idempotency table.</p>
        </div>
        <SignInForm
          options={configuredSignInOptions()}
          demoAccounts={demoAccounts}
          demoPassword={isDemoMode() ? DEMO_PASSWORD : null}
          callbackUrl={callbackUrl}
          error={signInErrorMessage(params.error)}
        />
      </div>
    </main>
  );
}
