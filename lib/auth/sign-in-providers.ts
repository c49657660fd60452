import "server-only";
import type { Provider } from "next-auth/providers/index";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import { isDemoMode } from "@/lib/auth/demo-mode";
import { clientAddressOf, passwordSignIn } from "@/lib/auth/password-sign-in";
import { env } from "@/lib/config/environment";
import { getDb } from "@/lib/db/client";
import { oidcProfile } from "@/lib/auth/oidc-profile";
import { githubSettings, oidcSettings } from "@/lib/auth/sign-in-options";

export function buildProviders(): Provider[] {
  const providers: Provider[] = [];
  const oidc = oidcSettings();
  if (oidc) {
    providers.push({
      id: "oidc",
      name: env().OIDC_NAME ?? "Single sign-on",
      type: "oauth",
      wellKnown: `${oidc.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
      clientId: oidc.clientId,
      clientSecret: oidc.clientSecret,
      authorization: { params: { scope: "openid email profile" } },
      idToken: true,
      userinfo: { request: oidcProfile },
      checks: ["pkce", "state"],
      profile: (profile: { sub: string; email?: string; email_verified?: boolean; name?: string }) => ({
        id: profile.sub,
        email: profile.email ?? null,
        // A provider that says it has not verified the address may be letting anyone claim it.
        emailUnverified: profile.email_verified === false,
        name: profile.name ?? profile.email ?? profile.sub,
      }),
    });
  }
  const github = githubSettings();
  if (github) providers.push(GitHubProvider(github));
  if (isDemoMode()) {
    providers.push(
      CredentialsProvider({
        id: "demo",
        name: "Demo account",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, request) {
          const email = credentials?.email?.slice(0, 320) ?? "";
          const password = credentials?.password?.slice(0, 200) ?? "";
          // Throttled, audited, and as slow for an unknown e-mail as for a wrong password.
          const outcome = await passwordSignIn(getDb(), { email, password, client: clientAddressOf(request?.headers) });
          if (!outcome.ok) {
            if (outcome.reason === "throttled") throw new Error("Throttled");
            return null;
          }
          return { id: outcome.user.id, email: outcome.user.email, name: outcome.user.name };
        },
      }),
    );
  }
  return providers;
}
