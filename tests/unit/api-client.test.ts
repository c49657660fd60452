import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, expectTypeOf, it, vi } from "vitest";
import type { ContractReply } from "@/lib/api/contract-route";
import type { ContractResponse } from "@/lib/api/contract";
import type { RevealAnswer } from "@/lib/api/contracts/answers";
import type { meContract } from "@/lib/api/contracts/operations";
import type { revealRecordContract } from "@/lib/api/contracts/records";
import { API_ROUTES } from "@/lib/api/routes";
import { callApi, endpoint, type ApiResult } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";
import { apiUrl } from "@/lib/api/api-url";

type Seen = { method: string; url: string; headers: IncomingMessage["headers"]; body: string };

// A real HTTP server standing in for the console; fetch gets the origin a browser would add.
let server: Server;
const seen: Seen[] = [];
const sentInit: RequestInit[] = [];

async function read(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    seen.push({
      method: request.method ?? "",
      url: request.url ?? "",
      headers: request.headers,
      body: await read(request),
    });
    response.writeHead(request.url?.includes("gone") ? 404 : 200, { "content-type": "application/json" });
    response.end(
      JSON.stringify(
        request.url?.includes("gone")
          ? { error: { code: "not_found", message: "No such record." } }
          : { key: "k", ref: "r", response: { a: 1 }, revealedPaths: [], auditId: "9" },
      ),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const realFetch = globalThis.fetch;
  vi.stubGlobal("fetch", (url: string, init: RequestInit) => {
    sentInit.push(init);
    return realFetch(`${base}${url}`, init);
  });
});

afterAll(async () => {
  vi.unstubAllGlobals();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

describe("apiUrl", () => {
  it("fills each path parameter, encoded, and appends the query it is given", () => {
    expect(apiUrl(API_ROUTES.revealRecord, { key: "a/b c" })).toBe("/api/v1/records/a%2Fb%20c/reveal");
    expect(apiUrl(API_ROUTES.toolsUpload, {}, { server: "shop:1", other: undefined })).toBe(
      "/api/v1/tools/upload?server=shop%3A1",
    );
    expect(apiUrl(API_ROUTES.exportRecords, {})).toBe("/api/v1/records/export");
  });
});

describe("callApi", () => {
  it("sends the route's method to its URL, same-origin, with the JSON body and the headers the pages sent", async () => {
    const answer = await callApi(api.revealRecord, { params: { key: "abc" }, json: { reason: "ticket 4411" } });
    expect(answer).toEqual({
      ok: true,
      status: 200,
      value: { key: "k", ref: "r", response: { a: 1 }, revealedPaths: [], auditId: "9" },
    });
    expect(seen.at(-1)).toMatchObject({
      method: "POST",
      url: "/api/v1/records/abc/reveal",
      headers: { accept: "application/json", "content-type": "application/json" },
      body: '{"reason":"ticket 4411"}',
    });
    expect(sentInit.at(-1)).toMatchObject({ credentials: "same-origin", cache: "no-store" });
  });

  it("reads a refusal in the API's {error: {code, message}} shape", async () => {
    const answer = await callApi(api.revealRecord, { params: { key: "gone" }, json: { reason: "ticket 4411" } });
    expect(answer).toMatchObject({ ok: false, status: 404, code: "not_found", message: "No such record." });
  });
});

// The types: checked by `npm run typecheck` (tsc includes tests/), where an expected error that
// does not occur is itself an error, so each marked line below fails the build if the types loosen.
describe("one declaration per answer", () => {
  it("types the handler's reply, the client's request and its answer from the contract", () => {
    expectTypeOf<RevealAnswer>().toEqualTypeOf<ContractResponse<typeof revealRecordContract, 200>>();
    expectTypeOf<RevealAnswer["revealedPaths"]>().toEqualTypeOf<string[]>();
    expectTypeOf<Awaited<ReturnType<typeof callApi<typeof revealRecordContract>>>>().toEqualTypeOf<
      ApiResult<typeof revealRecordContract>
    >();

    // Never called: only compiled.
    const handler = (reply: ContractReply<typeof meContract>) => [
      reply({ kind: "user", name: "Ann", role: "viewer", tenants: [] }),
      // @ts-expect-error -- a field the answer does not have (tenant for tenants)
      reply({ kind: "user", name: "Ann", role: "viewer", tenant: [] }),
      // @ts-expect-error -- a field missing
      reply({ kind: "user", name: "Ann", role: "viewer" }),
      // @ts-expect-error -- a status the contract does not declare
      reply({ kind: "user", name: "Ann", role: "viewer", tenants: [] }, 201),
    ];
    const client = async () => {
      // @ts-expect-error -- a body field the route does not read
      await callApi(api.revealRecord, { params: { key: "k" }, json: { reasons: "x" } });
      // @ts-expect-error -- the path parameter missing
      await callApi(api.revealRecord, { json: { reason: "x" } });
      const answer = await callApi(api.revealRecord, { params: { key: "k" }, json: { reason: "x" } });
      // @ts-expect-error -- a field the answer does not have
      if (answer.ok) return answer.value.auditID;
      // @ts-expect-error -- an error code this route never answers
      return answer.code === "name_taken";
    };
    // @ts-expect-error -- a route given another route's contract
    const crossed = endpoint<typeof revealRecordContract>(API_ROUTES.allowRepeat);
    expect([handler, client, crossed]).toHaveLength(3);
  });
});
