import type { Role } from "@/lib/identity/roles";

/** Who is acting: a signed-in person, a bearer token, or the console's own jobs. */
export type Actor = {
  kind: "user" | "token" | "system";
  id: string;
  /** Stable identifier for audit rows: the email for people, the token or job name otherwise. */
  name: string;
  /** What the shell shows. */
  displayName: string;
  role: Role;
  /** Tenants this actor may see; empty means every tenant. */
  tenants: string[];
  /** A bearer token's scope (lib/auth/permissions.ts TOKEN_SCOPES); absent: everything the role allows. */
  scope?: "full" | "metrics";
};
