import { env } from "@/lib/config/environment";
import { UserError } from "@/lib/errors/user-error";

/** Demo sign-ins (the seeded viewer, operator and admin) exist only in demo mode. */
export function isDemoMode(): boolean {
  return env().IDEM_DEMO;
}

/** Refuses demo sign-ins on a production server unless someone asked for them explicitly. */
export function assertDemoModeAllowed(): void {
  if (!isDemoMode()) return;
  if (env().NODE_ENV === "production" && !env().IDEM_DEMO_ALLOW_PRODUCTION) {
    throw new UserError(
      "IDEM_DEMO=1 turns on demo sign-ins with published passwords, and NODE_ENV is production. Unset IDEM_DEMO, or set IDEM_DEMO_ALLOW_PRODUCTION=1 if this really is a demo (npm run demo does).",
      1,
    );
  }
}

/** Every demo account signs in with this password; the sign-in page shows it. */
export const DEMO_PASSWORD = "demo";
