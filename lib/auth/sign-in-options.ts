import { isDemoMode } from "@/lib/auth/demo-mode";
import { env } from "@/lib/config/environment";

export type SignInOption = { id: string; name: string; kind: "oauth" | "demo" };

/** Sign-in methods the environment configures; the sign-in page and startup check list these. */
export function configuredSignInOptions(): SignInOption[] {
  const options: SignInOption[] = [];
  if (oidcSettings()) options.push({ id: "oidc", name: env().OIDC_NAME ?? "Single sign-on", kind: "oauth" });
  if (githubSettings()) options.push({ id: "github", name: "GitHub", kind: "oauth" });
  if (isDemoMode()) options.push({ id: "demo", name: "Demo account", kind: "demo" });
  return options;
}

export function oidcSettings() {
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = env();
  return issuer && clientId && clientSecret ? { issuer, clientId, clientSecret } : null;
}

export function githubSettings() {
  const { GITHUB_ID: clientId, GITHUB_SECRET: clientSecret } = env();
  return clientId && clientSecret ? { clientId, clientSecret } : null;
}
