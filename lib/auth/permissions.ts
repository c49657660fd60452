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
  // Ends a completed record's deduplication (issue #28): the next identical call runs again.
  "records:allow-repeat": OPERATORS,
  "reconcile:run": OPERATORS,
  "metrics:read": EVERYONE,
  // The Prometheus exposition (lib/metrics/prometheus-scrape.ts): the one action a `metrics` token may take.
  "metrics:scrape": EVERYONE,
  // Discards rolled-up figures and counts them again from the base tables (after a backfill).
  "metrics:recount": ADMINS,
  "keys:explain": EVERYONE,
  "tools:read": EVERYONE,
  // A refresh connects to every listed server: it makes outbound calls, so operators start it.
  "tools:refresh": OPERATORS,
  "tools:configure": ADMINS,
  "annotations:review": ADMINS,
  // The double-call test (issue #18) makes real side effects on a staging server: admins only.
  "tools:verify": ADMINS,
  "audit:read": EVERYONE,
  "tokens:manage": ADMINS,
  "users:manage": ADMINS,
} as const satisfies Record<string, readonly Role[]>;

export type Action = keyof typeof PERMISSIONS;

export function can(role: Role, action: Action): boolean {
  return (PERMISSIONS[action] as readonly Role[]).includes(role);
}

/**
 * What a bearer token's scope leaves of its role: `full` everything the role may do, `metrics` only
 * the scrape, so the token a Prometheus server holds reads no record, audit entry or figure besides it.
 */
export const TOKEN_SCOPES = {
  full: null,
  metrics: ["metrics:scrape"],
} as const satisfies Record<string, readonly Action[] | null>;

export type TokenScope = keyof typeof TOKEN_SCOPES;

export function isTokenScope(value: unknown): value is TokenScope {
  return typeof value === "string" && Object.hasOwn(TOKEN_SCOPES, value);
}

/** The role allows it, and the scope (a token's; people have none) leaves it. */
export function canWithScope(role: Role, scope: TokenScope | undefined, action: Action): boolean {
  const limited: readonly Action[] | null = TOKEN_SCOPES[scope ?? "full"];
  return can(role, action) && (limited === null || limited.includes(action));
}

export function isAction(value: string): value is Action {
  return Object.hasOwn(PERMISSIONS, value);
}
