import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { builtInRoutes } from "./built-in-routes";
import { createCounters } from "./counters";
import {
  createFaultInjector,
  DEFAULT_FAULTS,
  FAULT_HEADER,
  forcedFault,
  forcedLatency,
  LATENCY_HEADER,
  AT_HEADER,
  mergeFaultSettings,
  requestTime,
  type Fault,
} from "./fault-injection";
import { errorReply, HttpError, readJsonObject, sendJson, type Reply } from "./json-http";
import { createReferenceLedger } from "./reference-ledger";
import type { ReferenceSnapshot } from "./upstream-types";
import { matchRoute } from "./router";
import { sleep } from "./sleep";
import type { DemoUpstream, DemoUpstreamOptions, FaultSettings } from "./upstream-types";
import type { RouteContext, UpstreamRoute } from "./upstream-route";

interface UpstreamDefinition {
  /** Shown in the 500 log line, e.g. "demo processor". */
  name: string;
  routes: UpstreamRoute[];
  /** Forgets the upstream's own records (charges, shipments); the core forgets references and counters. */
  resetState(): void;
}

function toReply(error: unknown, name: string): Reply {
  if (error instanceof HttpError) return errorReply(error.status, error.code, error.message);
  console.error(`${name}: unexpected error`, error);
  return errorReply(500, "internal", "unexpected error in the demo upstream");
}

function faultFields(options: DemoUpstreamOptions): Partial<FaultSettings> {
  const { latencyMs, timeoutRate, failureRate, hangMs } = options;
  return Object.fromEntries(
    Object.entries({ latencyMs, timeoutRate, failureRate, hangMs }).filter(([, v]) => v !== undefined),
  );
}

function validateListen(options: DemoUpstreamOptions): { port: number; host: string; seed: number } {
  const { port = 0, host = "127.0.0.1", seed = 1 } = options;
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new RangeError(`port: expected 0..65535, got ${port}`);
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed: expected an integer, got ${seed}`);
  return { port, host, seed };
}

/** Resolves early when the client hangs up or the server stops: a held answer nobody will read. */
function holdResponse(ms: number, clientGone: AbortSignal, stopping: AbortSignal): Promise<boolean> {
  return sleep(ms, AbortSignal.any([clientGone, stopping]));
}

/**
 * The shared body of the demo processor and carrier: routing, JSON errors, request counting,
 * fault injection (failure before the handler, timeout after it) and a stop() that does not
 * wait for held-back answers.
 */
export async function startUpstream(
  definition: UpstreamDefinition,
  options: DemoUpstreamOptions = {},
): Promise<DemoUpstream> {
  const { port, host, seed } = validateListen(options);
  let settings = mergeFaultSettings(DEFAULT_FAULTS, faultFields(options));
  const injector = createFaultInjector(seed);
  const counters = createCounters();
  const ledger = createReferenceLedger();
  const stopController = new AbortController();
  const stopping = stopController.signal;

  const controls = {
    stats: () => counters.snapshot(),
    faults: () => ({ ...settings }),
    setFaults: (partial: unknown) => {
      settings = mergeFaultSettings(settings, partial);
      return { ...settings };
    },
    reset: () => {
      definition.resetState();
      ledger.clear();
      counters.reset();
      injector.reseed();
    },
    exportReferences: () => ledger.exportSettled(),
    importReferences: (settled: ReferenceSnapshot) => ledger.importSettled(settled),
  };
  const routes = [...builtInRoutes(controls), ...definition.routes];

  async function respond(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const clientGone = new AbortController();
    res.once("close", () => clientGone.abort());
    // A write to a caller that already hung up is expected here, not an error worth a crash.
    res.on("error", () => {});

    const method = req.method ?? "GET";
    const url = new URL(req.url ?? "/", "http://upstream.invalid");
    let match;
    try {
      match = matchRoute(routes, method, url.pathname);
    } catch (error) {
      match = undefined;
      req.resume();
      counters.request(undefined);
      return sendJson(res, toReply(error, definition.name));
    }
    if (!match || "allow" in match) {
      req.resume();
      counters.request(undefined);
      if (!match) return sendJson(res, errorReply(404, "not_found", `no route for ${method} ${url.pathname}`));
      const reply = errorReply(405, "method_not_allowed", `${method} is not allowed on ${url.pathname}`);
      return sendJson(res, { ...reply, headers: { allow: match.allow.join(", ") } });
    }

    const { route, params } = match;
    const name = `${route.method} ${route.path}`;
    if (route.kind !== "admin") counters.request(name);
    let fault: Fault = "none";
    let reply: Reply;
    try {
      if (route.kind !== "admin") {
        // Drawn even when a header overrides it, so forcing one request does not shift the seeded sequence.
        const drawnFault = route.kind === "mutation" ? injector.draw(settings) : "none";
        fault = forcedFault(req.headers[FAULT_HEADER]) ?? drawnFault;
      }
      const drawnLatency = route.kind === "mutation" ? injector.latency(settings) : 0;
      const latencyMs = route.kind === "mutation" ? (forcedLatency(req.headers[LATENCY_HEADER]) ?? drawnLatency) : 0;
      if (fault === "failure") {
        // Before any side effect: the one failure a caller may safely retry.
        counters.failureInjected();
        req.resume();
        await sleep(latencyMs, stopping);
        reply = errorReply(503, "service_unavailable", "injected failure: nothing was performed");
      } else {
        const context: RouteContext = {
          route: name,
          params,
          query: url.searchParams,
          readBody: () => readJsonObject(req),
          latencyMs,
          at: requestTime(req.headers[AT_HEADER]),
          stopping,
          counters,
          ledger,
        };
        reply = await route.handle(context);
      }
    } catch (error) {
      req.resume();
      reply = toReply(error, definition.name);
    }
    if (fault === "timeout") {
      // After the side effect: the caller cannot tell whether it happened, which is the point.
      counters.timeoutInjected();
      await holdResponse(settings.hangMs, clientGone.signal, stopping);
    }
    if (clientGone.signal.aborted || stopping.aborted) return;
    sendJson(res, reply);
  }

  const server = createServer((req, res) => {
    respond(req, res).catch((error: unknown) => sendJson(res, toReply(error, definition.name)));
  });
  // Longer than any client keeps an idle socket, so a reused socket is never closed under it.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === "IPv6" ? `[${address.address}]` : address.address;

  let stopped: Promise<void> | undefined;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    stats: controls.stats,
    faults: controls.faults,
    setFaults: (partial) => controls.setFaults(partial),
    reset: controls.reset,
    exportReferences: controls.exportReferences,
    importReferences: controls.importReferences,
    stop: () => {
      stopped ??= new Promise<void>((resolve) => {
        stopController.abort();
        server.close(() => resolve());
        // Held-back answers and idle keep-alive sockets would otherwise keep close() waiting.
        server.closeAllConnections();
      });
      return stopped;
    },
  };
}
