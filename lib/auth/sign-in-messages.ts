const MESSAGES: Record<string, string> = {
  CredentialsSignin: "Wrong email or password.",
  Throttled: "Too many failed sign-ins for this account or from this address. Wait 15 minutes, then try again.",
  NotAllowed: "This account has no access to Idem Console, or it was disabled. Ask an admin to add you.",
  NoEmail: "Your identity provider did not share an email address, so the console cannot find your account.",
  SessionRequired: "Sign in to continue.",
  SessionIdle: "Your session ended after a while without activity. Sign in again to continue.",
  SessionExpired: "Your session reached its maximum length. Sign in again to continue.",
  OAuthSignin: "Could not reach the identity provider. Try again, or ask an admin to check the OIDC settings.",
  OAuthCallback: "The identity provider's answer could not be verified. Try again.",
};

export function signInErrorMessage(code: string | string[] | undefined): string | null {
  if (typeof code !== "string" || code === "") return null;
  return MESSAGES[code] ?? "Sign-in failed. Try again.";
}

/** Only same-site paths: a callbackUrl must never send someone to another origin. */
export function safeCallbackUrl(value: string | string[] | undefined): string {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//") || value.startsWith("/\\"))
    return "/";
  return value.slice(0, 2000);
}
