// What the console's trivial route costs above the bare handler (issue #19, "floors"):
//   DATABASE_URL=postgresql://…/<a migrated database> npx tsx --conditions=react-server scripts/trivial-route-breakdown.ts [requests] [extra-name=path …]
// Starts the production build (built first when a source is newer, as the bench does), and the bare lookup handler
// (tools/bench/bare-lookup-server.ts), then times one request at a time on kept-alive connections,
// interleaved request by request (rotating the order), and prints p50/p95 per variant and its ratio
// to the bare handler. Extra `name=path` arguments add console paths (a variant route added for a
// measurement; an /api/v1 path is sent with an admin bearer token, any other with a session cookie
// the gate lets by; a third part `header:value` adds a request header, e.g.
// `through-proxy=/api/v1/me=x-idem-page-path:/`, which brings the proxy back on an API path);
// a path that does not answer 200 is left out with a note.
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { createToken } from "@/lib/auth/tokens";
import { startBareLookupServer } from "@/tools/bench/bare-lookup-server";
import { stopChild } from "@/tools/bench/bench-server";
import { summarise } from "@/tools/bench/percentiles";
import { ensureProductionBuild, nextBin } from "@/lib/build/next-build";
import { childEnvironment } from "@/lib/config/environment";
import { createPrismaClient } from "@/lib/db/prisma";
import { cliActor } from "@/lib/identity/cli-actor";

type Variant = {
  name: string;
  baseUrl: string;
  path: string;
  authorization?: string;
  cookie?: string;
  header?: [string, string];
  samples: number[];
};

// An extra path outside the gate's free list passes the proxy's optimistic gate with any session cookie.
const GATE_COOKIE = "next-auth.session-token=breakdown";

const databaseUrl = process.env.DATABASE_URL;
if (!databaseUrl) throw new Error("set DATABASE_URL to a migrated database");
const requests = Number(process.argv[2] ?? 2000);
const warmup = Math.min(300, Math.ceil(requests / 5));
const extra = process.argv.slice(3).map((arg) => {
  // name=path[=header:value]; a path's own query may hold "=": the header part is the last, with a ":".
  const name = arg.slice(0, arg.indexOf("="));
  const rest = arg.slice(arg.indexOf("=") + 1);
  const last = rest.lastIndexOf("=");
  const hasHeader = last > 0 && /^[\w-]+:/.test(rest.slice(last + 1));
  const path = hasHeader ? rest.slice(0, last) : rest;
  const header = hasHeader ? rest.slice(last + 1) : undefined;
  const colon = header?.indexOf(":") ?? -1;
  return {
    name,
    path,
    header: header && colon > 0 ? ([header.slice(0, colon), header.slice(colon + 1)] as [string, string]) : undefined,
  };
});

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function get(variant: Variant): Promise<{ status: number; elapsed: number }> {
  const started = performance.now();
  const response = await fetch(`${variant.baseUrl}${variant.path}`, {
    headers: {
      ...(variant.authorization ? { authorization: variant.authorization } : {}),
      ...(variant.cookie ? { cookie: variant.cookie } : {}),
      ...(variant.header ? { [variant.header[0]]: variant.header[1] } : {}),
    },
    // A redirect (the proxy's sign-in gate) is not the route: it is left out, not followed.
    redirect: "manual",
  });
  await response.text();
  return { status: response.status, elapsed: performance.now() - started };
}

await ensureProductionBuild();
const port = await freePort();
const baseUrl = `http://127.0.0.1:${port}`;
const child = spawn(process.execPath, [nextBin(), "start", "-p", String(port), "-H", "127.0.0.1"], {
  env: childEnvironment({
    GITHUB_ID: "idem-bench",
    GITHUB_SECRET: "idem-bench-never-used",
    DATABASE_URL: databaseUrl,
    NEXTAUTH_URL: baseUrl,
    NEXTAUTH_SECRET: randomBytes(32).toString("base64url"),
    NEXT_TELEMETRY_DISABLED: "1",
    IDEM_DEMO: "",
  }),
  stdio: ["ignore", "ignore", "inherit"],
});
const bare = await startBareLookupServer(databaseUrl);
const db = createPrismaClient(databaseUrl, 1);
try {
  const { token } = await createToken(db, cliActor(), { name: "breakdown", role: "admin" });
  for (let tries = 0; ; tries += 1) {
    const answer = await fetch(`${baseUrl}/api/health`).catch(() => null);
    if (answer?.ok) break;
    if (tries > 240) throw new Error("the console did not answer /api/health within 60 s");
    await new Promise((r) => setTimeout(r, 250));
  }
  const variants: Variant[] = [
    {
      name: "bare handler (node:http + pg lookup)",
      baseUrl: bare.baseUrl,
      path: `/api/v1/lookup?q=${encodeURIComponent("charge failed, ref 3f9a1c2b7d4e")}`,
      authorization: `Bearer ${token}`,
    },
    { name: "/api/health", baseUrl, path: "/api/health" },
    ...extra.map(({ name, path, header }) =>
      path.startsWith("/api/v1/")
        ? { name, baseUrl, path, header, authorization: `Bearer ${token}` }
        : { name, baseUrl, path, header, cookie: GATE_COOKIE },
    ),
  ].map((v) => ({ ...v, samples: [] as number[] }));
  const live: Variant[] = [];
  for (const variant of variants) {
    const { status } = await get(variant);
    if (status === 200) live.push(variant);
    else console.log(`left out: ${variant.name} (${variant.path} answered ${status})`);
  }
  for (let k = 0; k < warmup + requests; k += 1) {
    for (let i = 0; i < live.length; i += 1) {
      const variant = live[(k + i) % live.length]!;
      const { status, elapsed } = await get(variant);
      if (status !== 200) throw new Error(`${variant.path} answered ${status}`);
      if (k >= warmup) variant.samples.push(elapsed);
    }
  }
  const bareP50 = summarise(live[0]!.samples).p50Ms;
  console.log(`${requests} requests each after ${warmup} warm-up, interleaved; ms`);
  console.log(`| variant | p50 | p95 | p50 / bare |\n|---|---:|---:|---:|`);
  for (const variant of live) {
    const { p50Ms, p95Ms } = summarise(variant.samples);
    console.log(`| ${variant.name} | ${p50Ms.toFixed(2)} | ${p95Ms.toFixed(2)} | ${(p50Ms / bareP50).toFixed(2)}× |`);
  }
} finally {
  await db.$disconnect();
  await bare.stop();
  await stopChild(child);
}
