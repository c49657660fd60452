import http from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { downloadAsSent } from "../../tools/bench/download-as-sent";

// The export bench's downloader: it must ask for gzip as a browser does and count the bytes sent,
// without inflating them on the event loop the bench's users share.
const body = gzipSync(Buffer.from("key,ref\r\n".repeat(10_000)));
let server: http.Server;
let base = "";
const seen: { acceptEncoding?: string; authorization?: string }[] = [];

beforeAll(async () => {
  server = http.createServer((request, response) => {
    seen.push({ acceptEncoding: request.headers["accept-encoding"], authorization: request.headers.authorization });
    if (request.url === "/refused") {
      response.writeHead(403, { "content-type": "application/json" }).end('{"error":"forbidden"}');
    } else if (request.url === "/slow") {
      response.writeHead(200, { "content-encoding": "gzip" });
      response.write(body.subarray(0, 100)); // and never ends
    } else {
      response.writeHead(200, { "content-encoding": "gzip", "content-type": "text/csv" }).end(body);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

describe("downloadAsSent", () => {
  it("asks for gzip, passes the caller's headers and counts the compressed bytes", async () => {
    const download = await downloadAsSent(`${base}/file`, { authorization: "Bearer t" }, 5_000);
    expect(download).toEqual({
      status: 200,
      bytes: body.byteLength,
      contentEncoding: "gzip",
      finished: true,
      body: null,
    });
    expect(seen.at(-1)).toEqual({ acceptEncoding: "gzip", authorization: "Bearer t" });
  });

  it("keeps a refusal's body for its message", async () => {
    const download = await downloadAsSent(`${base}/refused`, {}, 5_000);
    expect(download.status).toBe(403);
    expect(download.body).toBe('{"error":"forbidden"}');
  });

  it("reports an answer still running at the time limit as unfinished, and refuses when nothing answers", async () => {
    const slow = await downloadAsSent(`${base}/slow`, {}, 300);
    expect(slow).toMatchObject({ status: 200, bytes: 100, finished: false });
    await expect(downloadAsSent("http://127.0.0.1:1/", {}, 1_000)).rejects.toThrow();
  });
});
