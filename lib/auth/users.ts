import "server-only";
import { randomUUID } from "node:crypto";
import type { Actor } from "@/lib/identity/actor";
import { endUserSessions } from "@/lib/auth/console-sessions";
import { hashPassword } from "@/lib/auth/passwords";
import { isRole, type Role } from "@/lib/identity/roles";
import { writeAudit } from "@/lib/audit/write-audit";
import type { Db } from "@/lib/db/prisma";
import { UserError } from "@/lib/errors/user-error";

export type ConsoleUserSummary = {
  id: string;
  email: string;
  name: string;
  role: Role;
  tenants: string[];
  disabledAt: Date | null;
  lastSignInAt: Date | null;
};

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}$/;

export function normaliseEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (!EMAIL.test(trimmed)) throw new UserError(`email: not an email address (${JSON.stringify(email.slice(0, 80))})`);
  return trimmed;
}

export async function findUserByEmail(db: Db, email: string) {
  return db.consoleUser.findUnique({ where: { email: email.trim().toLowerCase() } });
}

/** Adds a user or changes one's name, role, tenants or demo password. Audited. */
export async function saveUser(
  db: Db,
  actor: Actor,
  input: { email: string; name?: string; role: Role; tenants?: string[]; password?: string },
): Promise<ConsoleUserSummary> {
  const email = normaliseEmail(input.email);
  if (!isRole(input.role))
    throw new UserError(`role: expected viewer, operator or admin (got ${JSON.stringify(input.role)})`);
  const passwordHash = input.password ? await hashPassword(input.password) : undefined;
  return db.$transaction(async (tx) => {
    const before = await tx.consoleUser.findUnique({ where: { email } });
    const data = {
      name: input.name?.trim() || before?.name || email,
      role: input.role,
      tenants: input.tenants ?? before?.tenants ?? [],
      ...(passwordHash ? { passwordHash } : {}),
      disabledAt: null,
    };
    const saved = before
      ? await tx.consoleUser.update({ where: { email }, data })
      : await tx.consoleUser.create({ data: { id: randomUUID(), email, ...data } });
    await writeAudit(tx, actor, {
      action: before ? "user.update" : "user.create",
      before: before ? publicFields(before) : null,
      after: publicFields(saved),
    });
    return toSummary(saved);
  });
}

export async function disableUser(db: Db, actor: Actor, email: string): Promise<ConsoleUserSummary> {
  const normalised = normaliseEmail(email);
  return db.$transaction(async (tx) => {
    const before = await tx.consoleUser.findUnique({ where: { email: normalised } });
    if (!before) throw new UserError(`No user ${normalised}.`);
    const saved = await tx.consoleUser.update({ where: { email: normalised }, data: { disabledAt: new Date() } });
    const sessionsEnded = await endUserSessions(tx, saved.id, "user_disabled");
    await writeAudit(tx, actor, {
      action: "user.disable",
      before: publicFields(before),
      after: publicFields(saved),
      evidence: { sessionsEnded },
    });
    return toSummary(saved);
  });
}

export async function listUsers(db: Db): Promise<ConsoleUserSummary[]> {
  const rows = await db.consoleUser.findMany({ orderBy: { email: "asc" } });
  return rows.map(toSummary);
}

type UserRow = {
  id: string;
  email: string;
  name: string;
  role: string;
  tenants: string[];
  disabledAt: Date | null;
  lastSignInAt: Date | null;
};

function toSummary(row: UserRow): ConsoleUserSummary {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: isRole(row.role) ? row.role : "viewer",
    tenants: row.tenants,
    disabledAt: row.disabledAt,
    lastSignInAt: row.lastSignInAt,
  };
}

function publicFields(row: UserRow) {
  return {
    id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    tenants: row.tenants,
    disabled: row.disabledAt !== null,
  };
}

/** Accounts that sign in with a password: in demo mode, the demo accounts. */
export async function listPasswordAccounts(
  db: Db,
): Promise<Pick<ConsoleUserSummary, "email" | "name" | "role" | "tenants">[]> {
  const rows = await db.consoleUser.findMany({
    where: { passwordHash: { not: null }, disabledAt: null },
    orderBy: [{ role: "asc" }, { email: "asc" }],
    select: { email: true, name: true, role: true, tenants: true },
  });
  return rows.map((r) => ({ ...r, role: isRole(r.role) ? r.role : "viewer" }));
}
