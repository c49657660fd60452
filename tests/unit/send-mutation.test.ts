import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sendMutation } from "@/components/ui/send-mutation";
import { freePort } from "../helpers/free-port";

type Seen = { method: string; url: string; contentType: string | undefined; body: string };

// A real HTTP server standing in for the console's API: it records what arrived and answers per path.
let server: Server;
let base: string;
const seen: Seen[] = [];

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
      contentType: request.headers["content-type"],
      body: await read(request),
    });
    const json = (status: number, value: unknown) => {
      response.writeHead(status, { "content-type": "application/json" });
      response.end(JSON.stringify(value));
    };
    if (request.url === "/ok") return json(200, { auditId: "7" });
    if (request.url === "/conflict")
      return json(409, { error: { code: "conflict", message: "The row changed.", current: { status: "completed" } } });
    if (request.url === "/html") {
      response.writeHead(502, { "content-type": "text/html" });
      return response.end("<h1>Bad gateway</h1>");
    }
    json(404, {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("sendMutation", () => {
  it("sends JSON as a POST and returns the typed answer", async () => {
    const result = await sendMutation<{ auditId: string }>(`${base}/ok`, { json: { reason: "ticket 4411" } });
    expect(result).toEqual({ ok: true, status: 200, value: { auditId: "7" } });
    expect(seen.at(-1)).toEqual({
      method: "POST",
      url: "/ok",
      contentType: "application/json",
      body: '{"reason":"ticket 4411"}',
    });
  });

  it("sends a raw body with its own content type, and no body at all when given none", async () => {
    await sendMutation(`${base}/ok`, { raw: { body: '{"tools":[]}', contentType: "application/json" } });
    expect(seen.at(-1)?.body).toBe('{"tools":[]}');
    await sendMutation(`${base}/ok`);
    expect(seen.at(-1)).toMatchObject({ contentType: undefined, body: "" });
  });

  it("reads the API's {error: {code, message}} and keeps the error's other fields", async () => {
    const result = await sendMutation(`${base}/conflict`, { json: {} });
    expect(result).toEqual({
      ok: false,
      status: 409,
      code: "conflict",
      message: "The row changed.",
      error: { code: "conflict", message: "The row changed.", current: { status: "completed" } },
    });
  });

  it("says what the status was when the answer is not the API's JSON", async () => {
    const result = await sendMutation(`${base}/html`, { json: {} });
    expect(result).toMatchObject({ ok: false, status: 502, code: "http_error", message: "The console answered 502." });
  });

  it("refuses a 2xx answer of the wrong shape instead of handing it on", async () => {
    const result = await sendMutation(`${base}/ok`, {
      accept: (value): value is { check: unknown } => typeof value === "object" && value !== null && "check" in value,
    });
    expect(result).toMatchObject({ ok: false, status: 200, code: "bad_answer" });
  });

  it("says the console could not be reached, and what that means, when nothing answers", async () => {
    const port = await freePort();
    const result = await sendMutation(`http://127.0.0.1:${port}/x`, { json: {}, unreachable: "Nothing was changed." });
    expect(result).toEqual({
      ok: false,
      status: null,
      code: "unreachable",
      message: "The console could not be reached. Nothing was changed.",
      error: {},
    });
  });
});
