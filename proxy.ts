import { NextResponse, type NextRequest } from "next/server";

// An optimistic first gate only: no session cookie and no bearer token → sign-in page or a
// 401 JSON. Every page, route handler and action still checks the caller itself.
const SESSION_COOKIES = ["next-auth.session-token", "__Secure-next-auth.session-token"];

export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const hasSession = SESSION_COOKIES.some((name) => request.cookies.has(name));
  if (pathname.startsWith("/api/v1/")) {
    if (hasSession || request.headers.has("authorization")) return NextResponse.next();
    return NextResponse.json(
      { error: { code: "unauthenticated", message: "Sign in, or send `Authorization: Bearer <token>`." } },
      { status: 401 },
    );
  }
  if (hasSession) return NextResponse.next();
  const signIn = new URL("/sign-in", request.url);
  signIn.searchParams.set("callbackUrl", `${pathname}${search}`);
  return NextResponse.redirect(signIn);
}

export const config = {
  // Everything but sign-in, next-auth's own routes, health, forbidden and static assets.
  matcher: ["/((?!sign-in|forbidden|api/auth|api/health|_next/static|_next/image|favicon.ico).*)"],
};
