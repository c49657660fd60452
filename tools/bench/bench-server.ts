import "server-only";
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { encode } from "next-auth/jwt";
import { startSession } from "@/lib/auth/console-sessions";
import { createToken } from "@/lib/auth/tokens";
import { saveUser } from "@/lib/auth/users";
import { cliActor } from "@/lib/identity/cli-actor";
import { ensureProductionBuild, nextBin } from "@/lib/build/next-build";
import { createPrismaClient } from "@/lib/db/prisma";
import { githubSettings, oidcSettings } from "@/lib/auth/sign-in-options";
import { childEnvironment } from "@/lib/config/environment";

export type BenchServer = {
  baseUrl: string;
  /** The `next start` process, for the bench that pins it to a CPU or reads its memory. */
  pid: number;
  /** `Authorization` header value of an admin token created for the run. */
  authorization: string;
  /** `Cookie` header value of a signed-in admin's session, for pages. */
  sessionCookie: string;
  /** How the console reaches the bench processor (it answers "succeeded" for every reference). */
  config: {
    tools: Record<string, { processor: { type: "http"; baseUrl: string }; search?: Record<string, string> }>;
    metrics?: { rollupEvery: "off" };
    database?: { parallelWorkers: number };
  };
  stop(): Promise<void>;
};

export type BenchServerOptions = {
  /** A processor of the caller's (the soak's, which can hang) instead of the always-"succeeded" one. */
  processorUrl?: string;
  /** More environment for `next start` (the soak's shorter job heartbeat). */
  environment?: Record<string, string>;
  /** False: no background round in the server (`rollupEvery: "off"`): the caller runs it (bench-background.ts). */
  backgroundRounds?: boolean;
  /** The console's `database.parallelWorkers` (unset: the config's default). */
  parallelWorkers?: number;
};

const TOOLS = ["charge_card", "refund_charge", "create_shipment", "send_receipt_email"];
/** The bench's searchable fields: the loaded receipts' `id` (ch_…), as the demo configures charge_card. */
export const BENCH_SEARCH: Record<string, Record<string, string>> = { charge_card: { receipt: "$.id" } };

/**
 * The console as production runs it, against the bench database: the production build (built
 * only when missing or older than the sources), `next start` on a free port, an idem.config.json
 * pointing every tool at a processor that says every reference was taken (so resolve can
 * complete), an admin token, and an admin session cookie signed with the server's secret.
 */
export async function startBenchServer(
  databaseUrl: string,
  log: (line: string) => void,
  options: BenchServerOptions = {},
): Promise<BenchServer> {
  await ensureProductionBuild({ quietStdout: true });
  const processor = await listen(
    createServer((request, response) => {
      const match = /^\/references\/([^/?]+)$/.exec(request.url ?? "");
      response.setHeader("content-type", "application/json");
      if (!match) return response.writeHead(404).end(JSON.stringify({ error: "not found" }));
      response.end(
        JSON.stringify({
          status: "succeeded",
          receipt: { id: `ch_bench_${match[1]!.slice(0, 12)}`, status: "succeeded" },
        }),
      );
    }),
  );
  // The soak brings a processor that can hang; the one above then stands by unasked.
  const processorUrl = options.processorUrl ?? `http://127.0.0.1:${(processor.address() as AddressInfo).port}`;
  const config = {
    tools: Object.fromEntries(
      TOOLS.map((tool) => [
        tool,
        {
          processor: { type: "http" as const, baseUrl: processorUrl },
          ...(BENCH_SEARCH[tool] ? { search: BENCH_SEARCH[tool] } : {}),
        },
      ]),
    ),
    ...(options.backgroundRounds === false ? { metrics: { rollupEvery: "off" as const } } : {}),
    ...(options.parallelWorkers !== undefined ? { database: { parallelWorkers: options.parallelWorkers } } : {}),
  };
  const dir = mkdtempSync(path.join(tmpdir(), "idem-bench-"));
  const configFile = path.join(dir, "idem.config.json");
  writeFileSync(configFile, JSON.stringify(config));

  const secret = randomBytes(32).toString("base64url");
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [nextBin(), "start", "-p", String(port), "-H", "127.0.0.1"], {
    env: childEnvironment({
      ...signInMethod(),
      DATABASE_URL: databaseUrl,
      NEXTAUTH_URL: baseUrl,
      NEXTAUTH_SECRET: secret,
      IDEM_CONFIG: configFile,
      NEXT_TELEMETRY_DISABLED: "1",
      IDEM_DEMO: "",
      ...options.environment,
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const output: string[] = [];
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString().split("\n")) if (line.trim()) output.push(line);
    if (output.length > 50) output.splice(0, output.length - 50);
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", (chunk: Buffer) => {
    keep(chunk);
    log(chunk.toString().trimEnd());
  });

  const stop = async () => {
    await stopChild(child);
    await new Promise<void>((resolve) => processor.close(() => resolve()));
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitForHealth(baseUrl, child, output);
    const db = createPrismaClient(databaseUrl, 1);
    try {
      const { token } = await createToken(db, cliActor(), { name: "bench", role: "admin" });
      const user = await saveUser(db, cliActor(), { email: "bench@bench.test", name: "Bench", role: "admin" });
      // A session the console knows (console_session), as a sign-in would start: a cookie without one is signed out.
      const sid = await startSession(db, user.id, "idem bench");
      const jwt = await encode({
        token: { uid: user.id, sub: user.id, email: user.email, name: user.name, sid },
        secret,
      });
      return {
        baseUrl,
        pid: child.pid!,
        authorization: `Bearer ${token}`,
        sessionCookie: `next-auth.session-token=${jwt}`,
        config,
        stop,
      };
    } finally {
      await db.$disconnect();
    }
  } catch (error) {
    await stop();
    throw error;
  }
}

/** The server refuses to start without a sign-in method; the bench signs in by minting the session itself, so a placeholder does. */
function signInMethod(): Record<string, string> {
  if (oidcSettings() || githubSettings()) return {};
  return { GITHUB_ID: "idem-bench", GITHUB_SECRET: "idem-bench-never-used" };
}

function listen(server: Server): Promise<Server> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

export async function freePort(): Promise<number> {
  const server = await listen(createServer());
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function waitForHealth(baseUrl: string, child: ChildProcess, output: string[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`the console exited (${child.exitCode}) before answering:\n${output.join("\n")}`);
    try {
      const response = await fetch(`${baseUrl}/api/health`);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the console did not answer /api/health within 60 s:\n${output.join("\n")}`);
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await exited;
  clearTimeout(timer);
}
