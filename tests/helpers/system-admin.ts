import type { Actor } from "@/lib/identity/actor";

/**
 * The admin a test acts as when it sets up rows through the console's own functions (tokens,
 * annotations, resolutions): a system actor of every tenant, named in the audit rows it writes.
 */
export function systemAdmin(name: string, options: { id?: string; displayName?: string } = {}): Actor {
  return {
    kind: "system",
    id: options.id ?? "t",
    name,
    displayName: options.displayName ?? name,
    role: "admin",
    tenants: [],
  };
}
