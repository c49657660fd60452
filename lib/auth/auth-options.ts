import "server-only";
import type { NextAuthOptions } from "next-auth";
import { endSession, startSession } from "@/lib/auth/console-sessions";
import { sessionCookie } from "@/lib/auth/session-cookie";
import { sessionPolicy } from "@/lib/auth/session-policy";
import { buildProviders } from "@/lib/auth/sign-in-providers";
import { findUserByEmail } from "@/lib/auth/users";
import { accountOf, recordSignInFailure } from "@/lib/auth/sign-in-throttle";
import { env } from "@/lib/config/environment";
import { getDb } from "@/lib/db/client";

/**
 * next-auth decides who someone is; the console_user table decides whether they may come in
 * and with which role. An identity with no enabled console user is refused.
 */
export const authOptions: NextAuthOptions = {
  providers: buildProviders(),
  // The signed cookie lives as long as the absolute limit; the console_session row it names
  // decides on every request (idle timeout, sign-out, disabled user).
  session: { strategy: "jwt", maxAge: Math.ceil(sessionPolicy().maxAgeMs / 1000) },
  cookies: sessionCookie(env().NEXTAUTH_URL),
  pages: { signIn: "/sign-in", error: "/sign-in" },
  // A callback next-auth refuses (a tampered state, a bad code) reaches only its logger: audited here.
  logger: {
    error(code, metadata) {
      console.error("[next-auth]", code);
      if (/^(OAUTH_|SIGNIN_OAUTH_|CALLBACK_OAUTH)/.test(code)) {
        const provider = (metadata as { providerId?: string } | undefined)?.providerId ?? "oauth";
        void recordSignInFailure(getDb(), {
          provider,
          account: "(unknown)",
          client: "provider",
          reason: code,
          counted: false,
        }).catch(() => {});
      }
    },
    warn() {},
    debug() {},
  },
  secret: env().NEXTAUTH_SECRET,
  callbacks: {
    async signIn({ user, account }) {
      const provider = account?.provider ?? "unknown";
      // Password sign-ins audit their own failures (lib/auth/password-sign-in.ts); an identity from
      // OIDC or GitHub that the console's user list refuses is audited here.
      if (!user.email) {
        await recordSignInFailure(getDb(), {
          provider,
          account: accountOf(String(user.id ?? "")),
          client: "provider",
          reason: "the provider gave no e-mail",
          counted: false,
        });
        return "/sign-in?error=NoEmail";
      }
      if ((user as { emailUnverified?: boolean }).emailUnverified) {
        await recordSignInFailure(getDb(), {
          provider,
          account: accountOf(user.email),
          client: "provider",
          reason: "e-mail not verified by the provider",
          counted: false,
        });
        return "/sign-in?error=NotAllowed";
      }
      const consoleUser = await findUserByEmail(getDb(), user.email);
      if (!consoleUser || consoleUser.disabledAt) {
        await recordSignInFailure(getDb(), {
          provider,
          account: accountOf(user.email),
          client: "provider",
          reason: consoleUser ? "account disabled" : "not a console user",
          counted: false,
        });
        return "/sign-in?error=NotAllowed";
      }
      await getDb().consoleUser.update({ where: { id: consoleUser.id }, data: { lastSignInAt: new Date() } });
      return true;
    },
    async jwt({ token, user }) {
      // On sign-in, pin the console user id and open a server-side session; the role is never
      // trusted from the token.
      if (user?.email) {
        const consoleUser = await findUserByEmail(getDb(), user.email);
        if (consoleUser) {
          token.uid = consoleUser.id;
          token.sid = await startSession(getDb(), consoleUser.id, null);
        }
      }
      return token;
    },
    async session({ session, token }) {
      if (session.user && typeof token.uid === "string") session.user.id = token.uid;
      if (typeof token.sid === "string") session.sid = token.sid;
      return session;
    },
  },
  events: {
    // Sign-out ends the row, so the cookie is worthless even if a copy of it survives.
    async signOut({ token }) {
      if (typeof token?.sid === "string") await endSession(getDb(), token.sid, "signed_out");
    },
  },
};
