import type { Provider } from "next-auth/providers/index";
import CredentialsProvider from "next-auth/providers/credentials";
import GitHubProvider from "next-auth/providers/github";
import { isDemoMode } from "@/lib/auth/demo-mode";
import { clientAddressOf, passwordSignIn } from "@/lib/auth/password-sign-in";
import { getDb } from "@/lib/db/client";
import { oidcProfile } from "@/lib/auth/oidc-profile";
import { oidcSettings } from "@/lib/auth/sign-in-options";

export function buildProviders(): Provider[] {
  const providers: Provider[] = [];
  const oidc = oidcSettings();
  if (oidc) {
    providers.push({
      id: "oidc",
      name: process.env.OIDC_NAME || "Single sign-on",
      type: "oauth",
      wellKnown: `${oidc.issuer.replace(/\/$/, "")}/.well-known/openid-configuration`,
      clientId: oidc.clientId,
      clientSecret: oidc.clientSecret,
      authorization: { params: { scope: "openid email profile" } },
      idToken: true,
      userinfo: { request: oidcProfile },
      checks: ["pkce", "state"],
      profile: (profile: { sub: string; email?: string; name?: string }) => ({
        id: profile.sub,
        email: profile.email ?? null,
        name: profile.name ?? profile.email ?? profile.sub,
      }),
    });
  }
  if (process.env.GITHUB_ID && process.env.GITHUB_SECRET) {
    providers.push(GitHubProvider({ clientId: process.env.GITHUB_ID, clientSecret: process.env.GITHUB_SECRET }));
  }
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
