import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { configServers } from "@/lib/annotations/audited-servers";
import { listServerTools } from "@/lib/annotations/list-server-tools";
import { parseConfig } from "@/lib/config/load";

const PACKAGE_DIR = path.resolve("node_modules/@modelcontextprotocol/server-filesystem");

/**
 * What the package declares, read from its own source: every `server.registerTool("name", {…})`
 * and the `annotations: {…}` object literal inside it. A tool registered without annotations is
 * recorded as such, so "exactly" covers absence too.
 */
function declaredInPackage(): Record<string, Record<string, boolean> | null> {
  const source = readFileSync(path.join(PACKAGE_DIR, "dist/index.js"), "utf8");
  const parts = source.split(/server\.registerTool\(\s*"/).slice(1);
  const declared: Record<string, Record<string, boolean> | null> = {};
  for (const part of parts) {
    const name = part.slice(0, part.indexOf('"'));
    // The registration's options end where its handler begins: "}, async" or "}, someHandler)".
    const options = part.slice(0, part.search(/\n\}, /) + 1);
    const literal = /annotations:\s*(\{[^}]*\})/.exec(options)?.[1];
    declared[name] = literal ? (JSON.parse(literal.replace(/(\w+):/g, '"$1":')) as Record<string, boolean>) : null;
  }
  return declared;
}

describe("an official MCP reference server over stdio, from the config file", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "idem-fs-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is @modelcontextprotocol/server-filesystem 2026.8.31, and the package declares annotations to compare", () => {
    const pkg = JSON.parse(readFileSync(path.join(PACKAGE_DIR, "package.json"), "utf8")) as { version: string };
    expect(pkg.version).toBe("2026.8.31");
    const declared = declaredInPackage();
    expect(Object.keys(declared).length).toBeGreaterThanOrEqual(10);
    expect(declared.write_file).toEqual({
      readOnlyHint: false,
      idempotentHint: true,
      destructiveHint: true,
      openWorldHint: false,
    });
  });

  it("its tools appear with exactly the annotations it declares", async () => {
    const config = parseConfig(
      JSON.stringify({
        mcpServers: [
          {
            name: "files",
            transport: "stdio",
            command: path.resolve("node_modules/.bin/mcp-server-filesystem"),
            args: [dir],
          },
        ],
      }),
    );
    const [server] = configServers(config);
    const listing = await listServerTools(server!, 20_000);
    if (!listing.ok) throw new Error(listing.reason);
    const listed = Object.fromEntries(listing.tools.map((t) => [t.name, t.annotations ?? null]));
    expect(listed).toEqual(declaredInPackage());
  }, 30_000);
});
