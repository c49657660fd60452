import pg from "pg";
import { UserError } from "@/lib/errors/user-error";

export type ConsoleRoleReport = { role: string; created: boolean; schema: string; grants: string[] };

const ROLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * What the console's own role may do, table by table, and nothing more. It owns nothing, so it
 * cannot ALTER a table, disable a trigger or change the append-only rules, and it is no superuser,
 * so `session_replication_role = replica` (which would skip triggers) is refused too.
 * - idempotency: read, and the compare-and-set (complete: status, response, updated_at) and the
 *   release and the trim (DELETE); never INSERT — only writers claim keys;
 * - idempotency_event: read, and the trim's DELETE;
 * - audit_log: INSERT and SELECT only (its triggers refuse UPDATE, DELETE, TRUNCATE for the owner too);
 * - audit_chain_verification: INSERT and SELECT only, so the console cannot rewrite a failed verification;
 * - _prisma_migrations: read (the console checks that the schema is current);
 * - every other table is the console's own state (sessions, tokens, users, rollups, listings): all DML.
 */
const TABLE_GRANTS: Readonly<Record<string, string>> = {
  idempotency: "SELECT, UPDATE (status, response, updated_at), DELETE",
  idempotency_event: "SELECT, DELETE",
  audit_log: "SELECT, INSERT",
  audit_chain_verification: "SELECT, INSERT",
  _prisma_migrations: "SELECT",
};
const CONSOLE_STATE = "SELECT, INSERT, UPDATE, DELETE";

/**
 * Creates (or brings back into line) the least-privilege role the console serves as. Run as the
 * owner of the schema, after `migrate`; tables that later migrations add get the console-state
 * grants by default privileges, so a new table never needs this run again — but running it again
 * is harmless and re-applies the table rules above.
 */
export async function grantConsoleRole(
  ownerUrl: string,
  options: { role: string; password?: string },
): Promise<ConsoleRoleReport> {
  if (!ROLE_NAME.test(options.role))
    throw new UserError(
      `--role: expected a lower-case SQL name such as idem_console (got ${JSON.stringify(options.role)})`,
    );
  const client = new pg.Client({ connectionString: ownerUrl });
  await client.connect();
  const role = pg.escapeIdentifier(options.role);
  const grants: string[] = [];
  const run = async (sql: string) => {
    await client.query(sql);
    grants.push(sql);
  };
  try {
    await client.query("BEGIN");
    const { rows: schemaRows } = await client.query<{ schema: string; database: string; owner: string }>(
      "SELECT current_schema() AS schema, current_database() AS database, current_user AS owner",
    );
    const { schema, database } = schemaRows[0]!;
    if (options.role === schemaRows[0]!.owner)
      throw new UserError(
        `--role: ${options.role} is the role running this command (the owner); name a new role for the console`,
      );
    const { rows: tables } = await client.query<{ name: string }>(
      "SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') ORDER BY 1",
      [schema],
    );
    if (!tables.some((t) => t.name === "idempotency"))
      throw new UserError(
        `no idempotency table in schema ${schema}: run \`npm run idem -- migrate\` as the owner first`,
        1,
      );
    const { rowCount } = await client.query("SELECT 1 FROM pg_roles WHERE rolname = $1", [options.role]);
    const created = rowCount === 0;
    if (created) await run(`CREATE ROLE ${role} LOGIN`);
    const password = options.password === undefined ? "" : ` PASSWORD ${pg.escapeLiteral(options.password)}`;
    await client.query(
      `ALTER ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS${password}`,
    );
    grants.push(
      `ALTER ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS${password ? " PASSWORD '…'" : ""}`,
    );
    const owned = await client.query<{ name: string }>(
      "SELECT c.relname AS name FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner WHERE r.rolname = $1",
      [options.role],
    );
    if (owned.rows.length > 0)
      throw new UserError(
        `${options.role} owns ${owned.rows.map((r) => r.name).join(", ")}: the console's role must own nothing; reassign them to the owner first (REASSIGN OWNED BY ${options.role} TO …)`,
        1,
      );

    const ns = pg.escapeIdentifier(schema);
    await run(`GRANT CONNECT ON DATABASE ${pg.escapeIdentifier(database)} TO ${role}`);
    await run(`GRANT USAGE ON SCHEMA ${ns} TO ${role}`);
    await run(`REVOKE CREATE ON SCHEMA ${ns} FROM ${role}`);
    for (const { name } of tables) {
      const table = `${ns}.${pg.escapeIdentifier(name)}`;
      await client.query(`REVOKE ALL ON ${table} FROM ${role}`);
      await run(`GRANT ${TABLE_GRANTS[name] ?? CONSOLE_STATE} ON ${table} TO ${role}`);
    }
    await run(`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA ${ns} TO ${role}`);
    await run(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${ns} GRANT ${CONSOLE_STATE} ON TABLES TO ${role}`);
    await run(`ALTER DEFAULT PRIVILEGES IN SCHEMA ${ns} GRANT USAGE, SELECT ON SEQUENCES TO ${role}`);
    await client.query("COMMIT");
    return { role: options.role, created, schema, grants };
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
}
