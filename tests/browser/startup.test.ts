import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, inject, it } from "vitest";
import { freePort } from "../helpers/free-port";

// `next start` on the build the browser project made: each bad setting must stop the
// server at once with one line naming it, instead of failing on the first request.
async function startNext(env: Record<string, string | undefined>) {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [path.resolve("node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"],
    {
      env: {
        ...process.env,
        NODE_ENV: "production",
        DATABASE_URL: inject("databaseUrl"),
        NEXTAUTH_SECRET: "startup-test",
        IDEM_DEMO: "1",
        IDEM_DEMO_ALLOW_PRODUCTION: "1",
        IDEM_CONFIG: undefined,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr.on("data", (d: Buffer) => (output += d.toString()));
  const code = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      child.kill("SIGTERM");
      resolve(null); // still running after 20 s: it started
    }, 20_000);
    child.on("exit", (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  return { code, output };
}

function badConfig(text: string): string {
  const file = path.join(mkdtempSync(path.join(tmpdir(), "idem-config-")), "idem.config.json");
  writeFileSync(file, text);
  return file;
}

describe("the server refuses to start with a bad setup", () => {
  it.each([
    [{ IDEM_DEMO_ALLOW_PRODUCTION: undefined }, /IDEM_DEMO=1 turns on demo sign-ins.*NODE_ENV is production/],
    [
      { IDEM_CONFIG: badConfig('{"tools": {"charge_card": {"stuckAfter": "soon"}}}') },
      /tools\.charge_card\.stuckAfter: expected a positive duration/,
    ],
    [{ IDEM_CONFIG: badConfig("{oops") }, /idem\.config\.json: not valid JSON/],
    [{ IDEM_CONFIG: "/nonexistent/idem.config.json" }, /cannot read the configuration file/],
    [{ DATABASE_URL: "mysql://db/idem" }, /DATABASE_URL must start with postgresql/],
    [{ NEXTAUTH_SECRET: "" }, /NEXTAUTH_SECRET is not set/],
    [{ IDEM_DEMO: undefined }, /no sign-in method/],
    [{ IDEM_SESSION_IDLE: "half an hour" }, /IDEM_SESSION_IDLE="half an hour" is not a duration like "30m"/],
    [{ IDEM_TRUST_PROXY: "yes" }, /IDEM_TRUST_PROXY="yes" must be 1 or 0/],
  ])("%j", async (env, message) => {
    const { code, output } = await startNext(env);
    expect(code).toBe(1);
    expect(output).toMatch(/Idem Console cannot start: /);
    expect(output).toMatch(message);
    expect(output).not.toMatch(/^\s+at /m);
  });
});

describe("the server with an unreachable database", () => {
  it("starts, and answers 503 JSON (health and API) instead of a stack trace", async () => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      [path.resolve("node_modules/next/dist/bin/next"), "start", "-p", String(port), "-H", "127.0.0.1"],
      {
        env: {
          ...process.env,
          NODE_ENV: "production",
          DATABASE_URL: "postgresql://postgres@127.0.0.1:1/idem",
          NEXTAUTH_SECRET: "x",
          IDEM_DEMO: "1",
          IDEM_DEMO_ALLOW_PRODUCTION: "1",
          IDEM_CONFIG: undefined,
        },
        stdio: "ignore",
      },
    );
    try {
      const base = `http://127.0.0.1:${port}`;
      await expect
        .poll(
          () =>
            fetch(`${base}/api/health`).then(
              (r) => r.status,
              () => 0,
            ),
          { timeout: 20_000, interval: 250 },
        )
        .toBe(503);
      const healthAnswer = await fetch(`${base}/api/health`);
      expect(healthAnswer.headers.get("retry-after")).toBe("5");
      // The API's one error shape, the reason kept beside the message.
      expect(await healthAnswer.json()).toEqual({
        error: {
          code: "database_unavailable",
          message: expect.stringMatching(/cannot reach its database: .*connection refused.*Try again shortly/),
          database: expect.stringMatching(/connection refused/),
        },
      });
      const api = await fetch(`${base}/api/v1/me`, { headers: { authorization: "Bearer idem_whatever" } });
      expect(api.status).toBe(503);
      expect(await api.json()).toEqual({
        error: { code: "database_unavailable", message: expect.stringMatching(/cannot reach its database/) },
      });
    } finally {
      child.kill("SIGTERM");
    }
  });
});
