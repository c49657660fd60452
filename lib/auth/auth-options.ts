import type { NextAuthOptions } from "next-auth";
import { sessionCookie } from "@/lib/auth/session-cookie";
import { buildProviders } from "@/lib/auth/sign-in-providers";
import { findUserByEmail } from "@/lib/auth/users";
import { getDb } from "@/lib/db/client";

export const SESSION_MAX_AGE_S = 12 * 60 * 60;

/**
 * next-auth decides who someone is; the console_user table decides whether they may come in
 * and with which role. An identity with no enabled console user is refused.
 */
export const authOptions: NextAuthOptions = {
  providers: buildProviders(),
  session: { strategy: "jwt", maxAge: SESSION_MAX_AGE_S },
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
      // On sign-in, pin the console user id; the role is never trusted from the token.
      if (user?.email) {
        const consoleUser = await findUserByEmail(getDb(), user.email);
        if (consoleUser) token.uid = consoleUser.id;
      }
      return token;
    },
    async session({ session, token }) {
      if (session.user && typeof token.uid === "string") session.user.id = token.uid;
      return session;
    },
  },
};
