import { createHash } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import pg from "pg";
import { extractRefs } from "@/lib/records/extract-refs";

/**
 * A measuring stick, not product code: the ref lookup as the least a Node server can do for it —
 * `node:http` and `pg`, no framework, no ORM. The bearer token's sha256 and one indexed query of
 * api_token, the refs extracted from `q` (the console's own extractor), one primary-key range
 * query per ref, JSON. No tenant scope, no audit of refusals, no security headers: whatever the
 * console spends above this is the price of Next.js, Prisma and the console's own checks.
 */
export type BareLookupServer = { baseUrl: string; stop(): Promise<void> };

const TOKEN_QUERY = "SELECT role, revoked_at, expires_at FROM api_token WHERE token_hash = $1";
const RANGE_QUERY =
  "SELECT key, tenant, subject, tool, status, created_at, updated_at FROM idempotency WHERE key >= $1 AND key < $2 ORDER BY key LIMIT 21";

export async function startBareLookupServer(databaseUrl: string, poolSize = 4): Promise<BareLookupServer> {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: poolSize });
  const server = createServer((request, response) => {
    answer(pool, request, response).catch((error: unknown) =>
      send(response, 500, { error: { code: "internal", message: String(error) } }),
    );
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}

async function answer(pool: pg.Pool, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? "/", "http://bare");
  if (request.method !== "GET" || url.pathname !== "/api/v1/lookup")
    return send(response, 404, { error: { code: "not_found", message: "only GET /api/v1/lookup" } });
  const bearer = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? "");
  if (!bearer) return send(response, 401, { error: { code: "unauthenticated", message: "no bearer token" } });
  const hash = createHash("sha256").update(bearer[1]!).digest("hex");
  const { rows: tokens } = await pool.query<{ role: string; revoked_at: Date | null; expires_at: Date | null }>(
    TOKEN_QUERY,
    [hash],
  );
  const token = tokens[0];
  if (!token || token.revoked_at || (token.expires_at && token.expires_at <= new Date()))
    return send(response, 401, { error: { code: "unauthenticated", message: "token refused" } });
  const extracted = extractRefs(url.searchParams.get("q") ?? "");
  if (!extracted.ok) return send(response, 400, { error: { code: "text_too_long", message: extracted.message } });
  const matches = [];
  for (const ref of extracted.refs) {
    const { rows } = await pool.query(RANGE_QUERY, [ref, `${ref}g`]);
    matches.push(...rows);
  }
  send(response, 200, { refs: extracted.refs, matches });
}

function send(response: ServerResponse, status: number, body: unknown): void {
  const json = JSON.stringify(body);
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(json) });
  response.end(json);
}
