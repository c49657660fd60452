import { randomBytes } from "node:crypto";
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { buildToolsAudit } from "@/lib/annotations/build-audit";
import { auditToMarkdown } from "@/lib/annotations/export-audit";
import { parseToolsListing } from "@/lib/annotations/parse-listing";
import { recordUploadedListing } from "@/lib/annotations/refresh-listings";
import type { Actor } from "@/lib/identity/actor";
import { parseConfig } from "@/lib/config/load";
import { connectTestDb } from "../helpers/db";

const suffix = randomBytes(3).toString("hex");
const admin: Actor = {
  kind: "user",
  id: "u-md",
  name: `md-${suffix}@export.test`,
  displayName: "Admin",
  role: "admin",
  tenants: [`md-${suffix}`],
};
const HOSTILE_SERVER = `srv-${suffix}<script>alert(1)</script>`;
const HOSTILE_TOOLS = [
  "<img src=x onerror=alert(1)>",
  "tool | injected cell | x",
  "[click](javascript:alert(1))",
  "# heading\n\n- list item",
  "**bold** _em_ `code` ~~strike~~",
];

// Names from an MCP server go into the Markdown export as text: rendered by a real CommonMark
// renderer with raw HTML on (as many review tools render), none becomes an element, a link, a
// heading or a table cell of its own.
describe("the Markdown export escapes what the console did not write", () => {
  const db = connectTestDb();

  it("renders hostile tool and server names as their own text", async () => {
    const listing = parseToolsListing(
      JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        result: {
          tools: HOSTILE_TOOLS.map((name) => ({
            name,
            title: `<b>${name}</b>`,
            description: "<iframe src=//evil>",
            annotations: { idempotentHint: true },
          })),
        },
      }),
    );
    expect(listing.ok).toBe(true);
    if (!listing.ok) return;
    await recordUploadedListing(db, admin, HOSTILE_SERVER, listing.tools);
    const audit = await buildToolsAudit(db, parseConfig("{}"), admin, "24h");
    const markdown = auditToMarkdown(audit);
    const html = new MarkdownIt({ html: true, linkify: true }).render(markdown);

    expect(html).not.toMatch(/<(img|script|iframe|b)\b/i);
    expect(html).not.toMatch(/<a\b/i);
    // One tools-table row per listed tool (plus the header), whatever the names hold.
    const toolsTable = html.split("<h2>Tools</h2>")[1]!.split("</table>")[0]!;
    expect(toolsTable.match(/<tr>/g)?.length).toBe(1 + audit.tools.length);
    // Headings: the document's own, and one per tool — none injected by a name.
    expect(html.match(/<h[1-6]>/g)?.length).toBe(3 + audit.tools.length);
    // The names read as written once rendered (entities decoded, backslashes gone).
    const text = html
      .replace(/<[^>]+>/g, "")
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, "&");
    for (const name of HOSTILE_TOOLS) expect(text).toContain(name.replace(/\n+/g, " "));
    expect(text).toContain(HOSTILE_SERVER);
  });
});
