import { userInfo } from "node:os";
import type { Actor } from "@/lib/identity/actor";

/** Whoever runs the CLI on the console's host acts as an admin; audit rows name the OS user. */
export function cliActor(): Actor {
  let user = "unknown";
  try {
    user = userInfo().username;
  } catch {
    // no passwd entry (some containers): keep "unknown"
  }
  return { kind: "system", id: "cli", name: `cli (${user})`, displayName: `CLI (${user})`, role: "admin", tenants: [] };
}
