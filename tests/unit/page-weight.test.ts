import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { measurePageWeight } from "@/tools/bench/page-weight";

// A page as Next serves it: script tags (one of them the nomodule polyfills) and an RSC payload
// naming a client chunk the runtime loads. Each script is a different size, so a sum says which counted.
const SCRIPTS: Record<string, string> = {
  "/_next/static/chunks/main.js": "a".repeat(100) + Math.random(),
  "/_next/static/chunks/page.js": "b".repeat(10_000),
  "/_next/static/chunks/polyfills.js": "p".repeat(50_000) + [...Array(2000).keys()].join(),
  "/_next/static/chunks/lazy-client.js": "c".repeat(1000) + [...Array(500).keys()].join(),
};
const HTML = `<!DOCTYPE html><html><head>
<script src="/_next/static/chunks/polyfills.js" noModule="" nonce="x"></script>
<script src="/_next/static/chunks/main.js" async=""></script>
<script src="/_next/static/chunks/page.js?dpl=1" async=""></script>
</head><body><div data-testid="facets"></div>
<script>self.__next_f.push([1,"3:I[123,[\\"/_next/static/chunks/page.js\\",\\"/_next/static/chunks/lazy-client.js\\"],\\"X\\"]"])</script>
</body></html>`;

describe("page weight", () => {
  let server: Server;
  let baseUrl: string;
  const fetched: string[] = [];
  beforeAll(async () => {
    server = createServer((request, response) => {
      const path = (request.url ?? "").replace(/\?.*$/, "");
      fetched.push(path);
      if (path === "/records") return response.end(HTML);
      const script = SCRIPTS[path];
      if (script === undefined) return response.writeHead(404).end();
      response.end(script);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("counts the script tags and the chunks the RSC payload names, each once, and not the nomodule polyfills", async () => {
    const weight = await measurePageWeight(baseUrl, "", "/records", 1);
    const gz = (path: string) => gzipSync(Buffer.from(SCRIPTS[path]!), { level: 9 }).length;
    const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
    const counted = [
      "/_next/static/chunks/main.js",
      "/_next/static/chunks/page.js",
      "/_next/static/chunks/lazy-client.js",
    ];
    expect(weight.scripts).toBe(3);
    expect(weight.javascriptKb.gzip).toBe(kb(counted.reduce((sum, path) => sum + gz(path), 0)));
    expect(weight.scriptFiles.map((f) => f.src.replace(/\?.*$/, "")).sort()).toEqual([...counted].sort());
    expect(weight.noModuleKb).toEqual({ scripts: 1, gzip: kb(gz("/_next/static/chunks/polyfills.js")) });
  });
});
