import type { NextAuthOptions } from "next-auth";
import { endSession, startSession } from "@/lib/auth/console-sessions";
import { sessionCookie } from "@/lib/auth/session-cookie";
import { sessionPolicy } from "@/lib/auth/session-policy";
import { buildProviders } from "@/lib/auth/sign-in-providers";
import { findUserByEmail } from "@/lib/auth/users";
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
  cookies: sessionCookie(process.env.NEXTAUTH_URL),
  pages: { signIn: "/sign-in", error: "/sign-in" },
  secret: process.env.NEXTAUTH_SECRET,
  callbacks: {
    async signIn({ user }) {
      if (!user.email) return "/sign-in?error=NoEmail";
      const consoleUser = await findUserByEmail(getDb(), user.email);
      if (!consoleUser || consoleUser.disabledAt) return "/sign-in?error=NotAllowed";
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
