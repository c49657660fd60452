import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "./free-port";

/**
 * Debian's Prometheus and Alertmanager (packages `prometheus`, `prometheus-alertmanager`), started as
 * plain processes on loopback with a config of the test's own in a temp dir: the packages' services
 * play no part. stop() ends the process and removes its directory.
 */
export type Engine = { url: string; output(): string; stop(): Promise<void> };

async function startEngine(
  name: string,
  binary: string,
  args: (dir: string, port: number) => string[],
  config: (port: number) => string,
): Promise<Engine> {
  const dir = mkdtempSync(path.join(tmpdir(), `idem-${name}-`));
  const port = await freePort();
  writeFileSync(path.join(dir, "config.yml"), config(port));
  const child: ChildProcess = spawn(binary, args(dir, port), { stdio: ["ignore", "pipe", "pipe"] });
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d.toString()));
  child.stderr?.on("data", (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      await new Promise((r) => child.once("exit", r));
    }
    rmSync(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode}):\n${output}`);
    try {
      // The body read to its end: an unread one keeps its socket, and the test process, alive.
      const ready = await fetch(`${url}/-/ready`);
      await ready.arrayBuffer();
      if (ready.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`${name} was not ready in 20 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { url, output: () => output, stop };
}

/** Prometheus scraping the console every second with a bearer token, evaluating `ruleFiles` every second. */
export function startPrometheus(options: {
  target: string;
  token: string;
  ruleFiles?: string[];
  alertmanager?: string;
}): Promise<Engine> {
  return startEngine(
    "prometheus",
    "prometheus",
    (dir, port) => [
      `--config.file=${path.join(dir, "config.yml")}`,
      `--storage.tsdb.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--log.level=warn",
    ],
    () =>
      JSON.stringify({
        global: { scrape_interval: "1s", evaluation_interval: "1s" },
        rule_files: (options.ruleFiles ?? []).map((file) => path.resolve(file)),
        ...(options.alertmanager
          ? { alerting: { alertmanagers: [{ static_configs: [{ targets: [options.alertmanager] }] }] } }
          : {}),
        scrape_configs: [
          {
            job_name: "idem",
            metrics_path: "/api/v1/metrics/prometheus",
            authorization: { type: "Bearer", credentials: options.token },
            static_configs: [{ targets: [options.target] }],
          },
        ],
      }),
  );
}

/** Alertmanager routing the alerts `matchers` select to a webhook, every other alert to a receiver that sends nothing. */
export function startAlertmanager(options: { webhook: string; matchers: string[] }): Promise<Engine> {
  return startEngine(
    "alertmanager",
    "prometheus-alertmanager",
    (dir, port) => [
      `--config.file=${path.join(dir, "config.yml")}`,
      `--storage.path=${path.join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--cluster.listen-address=",
      "--log.level=warn",
    ],
    () =>
      JSON.stringify({
        route: {
          receiver: "nobody",
          group_by: ["alertname", "tool"],
          group_wait: "1s",
          group_interval: "1s",
          repeat_interval: "1h",
          routes: [{ receiver: "webhook", matchers: options.matchers }],
        },
        receivers: [
          { name: "nobody" },
          { name: "webhook", webhook_configs: [{ url: options.webhook, send_resolved: true }] },
        ],
      }),
  );
}

/** A real HTTP server on loopback that keeps every body POSTed to it. */
export async function startWebhookReceiver(): Promise<{ url: string; bodies: unknown[]; stop(): Promise<void> }> {
  const bodies: unknown[] = [];
  const server: Server = createServer((request, response) => {
    let text = "";
    request.on("data", (chunk: Buffer) => (text += chunk.toString()));
    request.on("end", () => {
      try {
        bodies.push(JSON.parse(text));
      } catch {
        bodies.push(text);
      }
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/alerts`,
    bodies,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An instant query on Prometheus's HTTP API: the vector's samples, labels and value. */
export async function queryPrometheus(
  url: string,
  query: string,
): Promise<{ labels: Record<string, string>; value: number }[]> {
  const response = await fetch(`${url}/api/v1/query?query=${encodeURIComponent(query)}`);
  const body = (await response.json()) as {
    status: string;
    error?: string;
    data: { result: { metric: Record<string, string>; value: [number, string] }[] };
  };
  if (body.status !== "success") throw new Error(`query ${query}: ${body.error}`);
  return body.data.result.map((r) => ({ labels: r.metric, value: Number(r.value[1]) }));
}

/** Polls until `check` returns a value (not undefined), or fails after `timeoutMs` naming what it waited for. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`gave up after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}
