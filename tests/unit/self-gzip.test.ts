import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { gzipWhereLabelled } from "@/lib/api/self-gzip";

// The answer half of the export's own gzip (next.config.ts gives the label): what it gzips, what it
// leaves, and that a download cut short stops the answer's own stream (an export stops reading).
const EXPORT_PATH = "/api/v1/records/export";
const request = (acceptEncoding?: string) =>
  new Request(`http://console.test${EXPORT_PATH}?format=csv`, {
    headers: acceptEncoding ? { "accept-encoding": acceptEncoding } : {},
  });
const answer = (text: string) =>
  new Response(text, {
    status: 400,
    statusText: "Bad Request",
    headers: { "content-type": "application/json", "content-length": String(text.length), "x-kept": "yes" },
  });

describe("gzipWhereLabelled", () => {
  it("gzips an answer on a self-gzipped path for a client that takes gzip, keeping its status and headers", async () => {
    const gzipped = gzipWhereLabelled(request("gzip, br"), EXPORT_PATH, answer('{"error":{}}'));
    expect(gzipped.status).toBe(400);
    expect(gzipped.statusText).toBe("Bad Request");
    expect(gzipped.headers.get("x-kept")).toBe("yes");
    expect(gzipped.headers.get("content-length")).toBeNull(); // the plain body's length would be wrong
    expect(gunzipSync(Buffer.from(await gzipped.arrayBuffer())).toString()).toBe('{"error":{}}');
  });

  it("leaves the answer alone on other paths, for clients that do not take gzip, and with no body", () => {
    const plain = answer("{}");
    expect(gzipWhereLabelled(request("gzip"), "/api/v1/records", plain)).toBe(plain);
    expect(gzipWhereLabelled(request("gzip;q=0"), EXPORT_PATH, plain)).toBe(plain);
    expect(gzipWhereLabelled(request(), EXPORT_PATH, plain)).toBe(plain);
    const empty = new Response(null, { status: 204 });
    expect(gzipWhereLabelled(request("gzip"), EXPORT_PATH, empty)).toBe(empty);
  });

  it("cancels the answer's own stream when the download is cut short", async () => {
    let cancelled!: () => void;
    const cancel = new Promise<void>((resolve) => (cancelled = resolve));
    const endless = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new TextEncoder().encode("key,ref\r\n".repeat(1_000))),
      cancel: () => cancelled(),
    });
    const gzipped = gzipWhereLabelled(request("gzip"), EXPORT_PATH, new Response(endless));
    const reader = gzipped.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    await expect(Promise.race([cancel.then(() => "cancelled"), sleep(5_000).then(() => "still read")])).resolves.toBe(
      "cancelled",
    );
  });
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
