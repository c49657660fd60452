import { isDemoMode } from "@/lib/auth/demo-mode";

export type SignInOption = { id: string; name: string; kind: "oauth" | "demo" };

/** Sign-in methods the environment configures; the sign-in page and startup check list these. */
export function configuredSignInOptions(): SignInOption[] {
  const options: SignInOption[] = [];
  if (oidcSettings()) options.push({ id: "oidc", name: process.env.OIDC_NAME || "Single sign-on", kind: "oauth" });
  if (process.env.GITHUB_ID && process.env.GITHUB_SECRET) options.push({ id: "github", name: "GitHub", kind: "oauth" });
  if (isDemoMode()) options.push({ id: "demo", name: "Demo account", kind: "demo" });
  return options;
}

export function oidcSettings() {
  const { OIDC_ISSUER: issuer, OIDC_CLIENT_ID: clientId, OIDC_CLIENT_SECRET: clientSecret } = process.env;
  return issuer && clientId && clientSecret ? { issuer, clientId, clientSecret } : null;
}
