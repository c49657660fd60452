import http from "node:http";
import { randomBytes } from "node:crypto";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { connectTestDb } from "../helpers/db";
import { systemAdmin } from "../helpers/system-admin";

// The export gzips its own answers at zlib's fastest level, and next.config.ts labels them gzip
// (lib/api/gzip-accepted.ts, lib/api/self-gzip.ts). Read off the wire, not through fetch (which would
// decode them): each answer's label must match its body — gzipped once, or not at all — for every
// status the path can give, and a client that does not take gzip gets the plain file.
const baseUrl = inject("baseUrl");
const admin = systemAdmin("export-gzip", { id: "test" });
const run = randomBytes(3).toString("hex");
const TENANT = `export-gzip-${run}`;
const EXPORT = `/api/v1/records/export?format=csv&tenant=${TENANT}`;

type Wire = { status: number; headers: http.IncomingHttpHeaders; body: Buffer };

function onTheWire(path: string, headers: Record<string, string>, method = "GET"): Promise<Wire> {
  return new Promise((resolve, reject) => {
    const request = http.request(`${baseUrl}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on("error", reject);
    });
    request.on("error", reject);
    request.end(method === "POST" ? "{}" : undefined);
  });
}

/** The body as the client would read it: decoded once where the answer says gzip. */
function decoded(wire: Wire): string {
  return (wire.headers["content-encoding"] === "gzip" ? gunzipSync(wire.body) : wire.body).toString("utf8");
}

const GZIP_MAGIC = Buffer.from([0x1f, 0x8b]);

describe("the export's own gzip, on the wire", () => {
  const db = connectTestDb();
  let token = "";

  beforeAll(async () => {
    ({ token } = await createToken(db, admin, { name: `export-gzip-${run}`, role: "admin" }));
    await db.$executeRawUnsafe(
      `INSERT INTO idempotency (key, tenant, tool, status, response, created_at, updated_at)
       SELECT encode(sha256(($1 || g)::bytea), 'hex'), $2, 'charge_card', 'completed',
              jsonb_build_object('id', 'ch_' || g, 'note', repeat('the same words again ', 20)),
              now() - make_interval(secs => g), now() - make_interval(secs => g)
         FROM generate_series(1, 500) AS g`,
      `export-gzip|${run}|`,
      TENANT,
    );
  });
  afterAll(async () => {
    await db.$executeRawUnsafe(`DELETE FROM idempotency WHERE tenant = $1`, TENANT);
  });

  it("gzips the file once, at the fastest level, for a client that takes gzip; the same file plain for one that does not", async () => {
    const auth = { authorization: `Bearer ${token}` };
    const gzipped = await onTheWire(EXPORT, { ...auth, "accept-encoding": "gzip, deflate, br" });
    expect(gzipped.status).toBe(200);
    expect(gzipped.headers["content-encoding"]).toBe("gzip");
    expect(gzipped.headers.vary).toMatch(/accept-encoding/i);
    expect(gzipped.body.subarray(0, 2)).toEqual(GZIP_MAGIC);
    // The gzip header's XFL byte: 4 is "fastest" (level 1), 0 is Next's default level.
    expect(gzipped.body[8]).toBe(4);
    const file = gunzipSync(gzipped.body);
    expect(file.subarray(0, 2)).not.toEqual(GZIP_MAGIC); // not gzip inside gzip
    const lines = file.toString("utf8").trimEnd().split("\r\n");
    expect(lines[0]).toMatch(/^key,ref,tenant,/);
    expect(lines).toHaveLength(501);
    expect(gzipped.body.byteLength).toBeLessThan(file.byteLength / 5);

    for (const acceptEncoding of [null, "identity", "gzip;q=0", "br"]) {
      const plain = await onTheWire(
        EXPORT,
        acceptEncoding === null ? auth : { ...auth, "accept-encoding": acceptEncoding },
      );
      expect(plain.status, String(acceptEncoding)).toBe(200);
      // br is Next's to give or not (it gives none); never a gzip body under another name.
      expect(plain.headers["content-encoding"], String(acceptEncoding)).toBeUndefined();
      expect(plain.body.toString("utf8"), String(acceptEncoding)).toBe(file.toString("utf8"));
    }
  });

  it("labels every other answer on the path as it is: refusals, bad input, other methods, near paths", async () => {
    const gzipClient = { "accept-encoding": "gzip" };
    const auth = { ...gzipClient, authorization: `Bearer ${token}` };
    const cases: [string, Record<string, string>, string, number][] = [
      [EXPORT, gzipClient, "GET", 401],
      [EXPORT, { ...gzipClient, authorization: "Bearer idem_not_a_token" }, "GET", 401],
      ["/api/v1/records/export?format=xls", auth, "GET", 400],
      [EXPORT, auth, "POST", 405],
      [EXPORT, auth, "DELETE", 405],
      [EXPORT, auth, "OPTIONS", 204],
    ];
    for (const [path, headers, method, status] of cases) {
      const wire = await onTheWire(path, headers, method);
      const context = `${method} ${path} (${headers.authorization ?? "no credentials"})`;
      expect(wire.status, context).toBe(status);
      if (wire.body.byteLength > 0) {
        expect(wire.headers["content-encoding"], context).toBe("gzip");
        expect(() => JSON.parse(decoded(wire)), context).not.toThrow();
      }
    }
    const head = await onTheWire(EXPORT, auth, "HEAD");
    expect(head.status).toBe(200);
    expect(head.body.byteLength).toBe(0);
    // Paths near it are not labelled unless they answer through the same code.
    for (const path of [
      "/api/v1/records/export/",
      "/API/v1/records/export",
      "/api/v1/records/EXPORT",
      "/api/v1/records/exports",
    ]) {
      const wire = await onTheWire(path, auth);
      const body = wire.headers["content-encoding"] === "gzip" ? () => gunzipSync(wire.body) : () => wire.body;
      expect(body, `${path}: ${wire.status} ${wire.headers["content-encoding"]}`).not.toThrow();
    }
  });
});
