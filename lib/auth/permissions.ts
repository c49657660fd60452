import type { Role } from "@/lib/identity/roles";

const EVERYONE = ["viewer", "operator", "admin"] as const;
const OPERATORS = ["operator", "admin"] as const;
const ADMINS = ["admin"] as const;

/**
 * The one permission table (docs/architecture.md#roles-and-permissions): every action the console can take and the roles that
 * may take it. Pages, route handlers, server actions and the CLI all ask `can()` about it.
 */
export const PERMISSIONS = {
  "records:read": EVERYONE,
  "records:lookup": EVERYONE,
  "records:check-processor": EVERYONE,
  "records:export": EVERYONE,
  "records:reveal": OPERATORS,
  "records:resolve": OPERATORS,
  "records:release": OPERATORS,
  "records:force-release": ADMINS,
  "reconcile:run": OPERATORS,
  "metrics:read": EVERYONE,
  "keys:explain": EVERYONE,
  "tools:read": EVERYONE,
  // A refresh connects to every listed server: it makes outbound calls, so operators start it.
  "tools:refresh": OPERATORS,
  "tools:configure": ADMINS,
  "annotations:review": ADMINS,
  "audit:read": EVERYONE,
  "tokens:manage": ADMINS,
  "users:manage": ADMINS,
} as const satisfies Record<string, readonly Role[]>;

export type Action = keyof typeof PERMISSIONS;

export function can(role: Role, action: Action): boolean {
  return (PERMISSIONS[action] as readonly Role[]).includes(role);
}

export function isAction(value: string): value is Action {
  return Object.hasOwn(PERMISSIONS, value);
}
