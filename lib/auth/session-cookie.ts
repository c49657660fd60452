import type { CookiesOptions } from "next-auth";

/**
 * The session cookie, stated rather than left to next-auth's defaults (its names must stay what
 * proxy.ts looks for). HttpOnly: scripts never read it. SameSite=Lax, not Strict: support staff
 * open links to records from tickets and chat, and Strict would show them signed out on that
 * first cross-site navigation; Lax is safe here because no GET changes anything and every
 * mutation checks Origin (lib/api/same-origin.ts). Secure, with the __Secure- prefix, whenever
 * the console's public URL is https.
 */
export function sessionCookie(publicUrl: string | undefined): Pick<CookiesOptions, "sessionToken"> {
  const secure = publicUrl?.startsWith("https://") ?? false;
  return {
    sessionToken: {
      name: `${secure ? "__Secure-" : ""}next-auth.session-token`,
      options: { httpOnly: true, sameSite: "lax", path: "/", secure },
    },
  };
}
