import "server-only";
import { z } from "zod";
import { Prisma } from "@/generated/prisma/client";
import type { Db } from "@/lib/db/prisma";
import { tokenRowQuery, type TokenRow } from "@/lib/auth/tokens";

const carriedRow = z
  .object({
    id: z.string(),
    name: z.string(),
    role: z.string(),
    scope: z.string(),
    tenants: z.array(z.string()),
    expiresAt: z.string().nullable(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
  })
  .nullable();

const toDate = (at: string | null) => (at === null ? null : new Date(at));

/**
 * A bearer request's token check, carried by the read a read-only route makes beside it: the token's
 * row comes back as one more column of the read's own statement, so the request waits for one round
 * trip instead of two (issue #31, item 2). The row is read in the read's snapshot on the primary, so
 * a revocation committed before the read is seen as the separate check would see it; apiRoute then
 * judges it with the same code (authenticateToken). Only on the primary: on a replica the row could
 * lag a revocation, so there the column is null and the request makes its own check.
 */
export class TokenCheckCarrier {
  #row: TokenRow | null | undefined = undefined;

  constructor(
    private readonly tokenHash: string,
    private readonly primary: Db,
  ) {}

  /** A json column for the read's select list: the token's row, or null (also on any db but the primary). */
  column(db: Db): Prisma.Sql {
    if (db !== this.primary) return NO_TOKEN_COLUMN;
    return Prisma.sql`(SELECT row_to_json(t) FROM (${tokenRowQuery(this.tokenHash)}) t)`;
  }

  /** The column's value once the read returned; a null from a db that is not the primary is ignored. */
  settle(db: Db, value: unknown): void {
    if (db !== this.primary) return;
    const row = carriedRow.parse(value);
    this.#row = row && {
      ...row,
      expiresAt: toDate(row.expiresAt),
      lastUsedAt: toDate(row.lastUsedAt),
      revokedAt: toDate(row.revokedAt),
    };
  }

  /** The token's row (null: no such token) as the read found it; undefined when no read carried it. */
  get row(): TokenRow | null | undefined {
    return this.#row;
  }
}

const NO_TOKEN_COLUMN = Prisma.sql`NULL::json`;

/** The column a read puts in its select list: the carrier's, or a null one when nothing is carried. */
export function carriedTokenColumn(db: Db, carrier: TokenCheckCarrier | undefined): Prisma.Sql {
  return carrier ? carrier.column(db) : NO_TOKEN_COLUMN;
}
