import "server-only";
import type { Actor } from "@/lib/identity/actor";
import { DEMO_PASSWORD } from "@/lib/auth/demo-mode";
import type { Role } from "@/lib/identity/roles";
import { saveUser } from "@/lib/auth/users";
import type { Db } from "@/lib/db/prisma";

/** The demo world's people: one per role, and a support agent who sees one tenant only. */
export const DEMO_USERS: { email: string; name: string; role: Role; tenants: string[] }[] = [
  { email: "viewer@demo.test", name: "Vera Viewer (support)", role: "viewer", tenants: [] },
  { email: "operator@demo.test", name: "Omar Operator", role: "operator", tenants: [] },
  { email: "admin@demo.test", name: "Ada Admin", role: "admin", tenants: [] },
  { email: "acme-support@demo.test", name: "Sam (acme support)", role: "viewer", tenants: ["acme"] },
];

/** Creates the demo accounts (password: DEMO_PASSWORD) unless they already exist. */
export async function seedDemoUsers(db: Db, actor: Actor): Promise<number> {
  let created = 0;
  for (const user of DEMO_USERS) {
    const existing = await db.consoleUser.findUnique({ where: { email: user.email } });
    if (existing?.passwordHash) continue;
    await saveUser(db, actor, { ...user, password: DEMO_PASSWORD });
    created += 1;
  }
  return created;
}
