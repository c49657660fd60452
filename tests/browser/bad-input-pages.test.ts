import { randomBytes } from "node:crypto";
import pg from "pg";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { signInAs } from "../helpers/sign-in";
import { browserMissing, launchChromium } from "../helpers/browser";
import { insertStuckClaim } from "../helpers/stuck-fixtures";

// Every console page's query parameters (and the record key in its path), fed bad input over
// real HTTP with a signed-in session: each answer is the page — with a message where the input
// was unusable — or the not-found page, never a 500, an error boundary or a stack trace.
const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");

const PAGE_VALUES: [label: string, value: string][] = [
  ["empty", ""],
  ["number overflow", "1e309"],
  ["long digits", "9".repeat(400)],
  ["6 kB", "a".repeat(6_000)],
  ["astral", "𝌆😀"],
  ["RTL override", "\u202Egnp.exe"],
  ["combining", "e\u0301\u0302\u0303"],
  ["lone surrogate (sent as U+FFFD)", "\uD800"],
  ["NUL", "\u0000"],
  ["NUL inside", "acme\u0000x"],
  ["control chars", "\u0001\u001b[31m"],
  ["SQL", "x'; DROP TABLE idempotency; --"],
  ["HTML script", "<script>alert(1)</script>"],
  ["path traversal", "../../../../etc/passwd"],
  ["JSONPath filter", "$..[?(@.constructor)]"],
  ["header CRLF", "x\r\nSet-Cookie: pwned=1"],
  ["proto", "__proto__"],
  ["half JSON", '{"a": '],
];

const PAGES: [path: string, base: Record<string, string>, params: string[]][] = [
  ["/", {}, ["bogus"]],
  ["/records", {}, ["tenant", "subject", "tool", "status", "stuck", "from", "to", "cursor", "dir", "limit", "bogus"]],
  ["/stuck", {}, ["tenant", "tool", "cursor", "dir", "limit"]],
  ["/lookup", {}, ["q"]],
  [
    "/keys",
    { tenant: `bad-${run}`, tool: "charge_card", args: "{}" },
    ["tenant", "subject", "tool", "args", "at", "window", "scheme", "compare"],
  ],
  ["/audit", {}, ["actor", "action", "key", "tenant", "from", "to", "cursor", "limit"]],
  ["/metrics", {}, ["window", "tool", "tenant"]],
  ["/tools", {}, ["window"]],
  ["/forbidden", {}, ["action"]],
  // A stuck claim's record page (its key set in beforeAll): the resolve it confirms and the Stuck filter it came from.
  [`/records/{stuck}`, {}, ["resolved", "stuckTenant", "stuckTool"]],
];

/** A server error that happened anyway: React streams its digest; the error boundaries say so. */
const SERVER_ERROR =
  /data-dgst="(?!NEXT_)|\$RX\("[^"]*","(?!NEXT_)|This page could not be loaded|Idem Console could not answer/;
const STACK = /\n\s+at .+\(|\s+at .+\.[jt]sx?:\d+:\d+|node_modules|PrismaClient|invalid byte sequence/;

describe.skipIf(browserMissing)("bad input in the console pages' URLs, over HTTP with a session", () => {
  let browser: Browser;
  let cookie = "";
  let tried = 0;
  const statuses = new Map<number, number>();
  let stuckKey = "";
  beforeAll(async () => {
    const pool = new pg.Pool({ connectionString: inject("databaseUrl"), max: 1 });
    stuckKey = await insertStuckClaim(pool, { tenant: `bad-${run}`, label: "record-page", minutesAgo: 40 });
    await pool.end();
    browser = await launchChromium();
    const context = await browser.newContext();
    await signInAs(await context.newPage(), "admin@demo.test", "/");
    cookie = (await context.cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
  });
  afterAll(async () => {
    await browser?.close();
    console.log(
      `bad-input page sweep: ${tried} bad URLs tried; answers by status: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    );
  });

  async function check(
    url: string,
    context: string,
    allowed: number[],
    failures: string[],
    options: { resetIsRefusal?: boolean } = {},
  ) {
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${url}`, { headers: { cookie }, redirect: "manual" });
    } catch (error) {
      // Node's HTTP parser answers an oversized request line with 431 and closes the socket; when
      // the close overtakes the client still writing 2 MB, the client sees a reset instead. Either
      // way the request never reached the console.
      const code = ((error as { cause?: { code?: string } }).cause ?? {}).code;
      if (options.resetIsRefusal && (code === "ECONNRESET" || code === "EPIPE")) {
        tried += 1;
        statuses.set(0, (statuses.get(0) ?? 0) + 1);
        return;
      }
      throw error;
    }
    const html = await response.text();
    tried += 1;
    statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    const location = response.headers.get("location") ?? "";
    if (!allowed.includes(response.status))
      failures.push(`${context}: status ${response.status} ${html.slice(0, 200)}`);
    // A redirect is the lookup going to its record; to sign-in would mean the session was not sent.
    else if (response.status >= 300 && response.status < 400 && !/^\/(records|lookup)\b/.test(location))
      failures.push(`${context}: redirected to ${location}`);
    else if (SERVER_ERROR.test(html))
      failures.push(`${context}: a server error in the page (${SERVER_ERROR.exec(html)?.[0]})`);
    else if (STACK.test(html)) failures.push(`${context}: a stack trace or server detail (${STACK.exec(html)?.[0]})`);
    else if (response.status === 200 && !/<h1[^>]*>/.test(html)) failures.push(`${context}: no page heading`);
  }

  it("every page's query parameters: the page (with a message), never a 500", async () => {
    const failures: string[] = [];
    for (const [template, base, params] of PAGES) {
      const path = template.replace("{stuck}", stuckKey);
      for (const param of [...params]) {
        // Four at a time: the console is one process on a shared, busy machine.
        const queue = [...PAGE_VALUES];
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            for (let next = queue.shift(); next; next = queue.shift()) {
              const [label, value] = next;
              // The lookup sends a single match straight to its record (a redirect): fine too.
              await check(
                `${path}?${new URLSearchParams({ ...base, [param]: value })}`,
                `${path} ?${param}= ${label}`,
                [200, 307],
                failures,
              );
            }
          }),
        );
      }
      await check(
        `${path}?${params[0]}=%E0%A4%A&${params[0]}=%ZZ%00`,
        `${path} broken percent-encoding`,
        [200, 307, 400],
        failures,
      );
      await check(
        `${path}?${params[0]}=${"b".repeat(2 * 1024 * 1024)}`,
        `${path} 2 MB query`,
        [200, 400, 413, 414, 431],
        failures,
        { resetIsRefusal: true },
      );
    }
    expect(failures).toEqual([]);
    // Most answers are the page itself, rendered for the signed-in admin.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(tried * 0.8);
  }, 600_000);

  it("each list's refusal starts again on that list: its own reset link, under its own name", async () => {
    for (const [path, testId, reset] of [
      ["/records?limit=7", "records-query-problems", "/records"],
      ["/stuck?limit=7", "stuck-query-problems", "/stuck"],
      ["/audit?limit=7", "audit-query-problems", "/audit"],
      ["/duplicates?window=7d", "duplicates-query-problems", "/duplicates"],
    ] as const) {
      const html = await (await fetch(`${baseUrl}${path}`, { headers: { cookie } })).text();
      const alert = new RegExp(`data-testid="${testId}"[\\s\\S]*?<a[^>]* href="([^"]*)"`).exec(html);
      expect(alert?.[1], path).toBe(reset);
    }
  });

  it("the record key in the path: the not-found page or the lookup, never a 500", async () => {
    const failures: string[] = [];
    for (const [label, value] of [
      ...PAGE_VALUES.filter(([l]) => l !== "empty"),
      ["ref", "0123456789ab"],
      ["encoded slash", "..%2F..%2Fetc"],
    ] as const) {
      await check(
        `/records/${label === "encoded slash" ? value : encodeURIComponent(value.replace(/[\uD800-\uDFFF]/g, "\uFFFD"))}`,
        `/records/{key} ${label}`,
        [404, 307, 308],
        failures,
      );
    }
    expect(failures).toEqual([]);
  }, 120_000);
});
