import { subscribe } from "node:diagnostics_channel";
import { appendFileSync } from "node:fs";
import pg from "pg";

/**
 * Preloaded into a crash test's child (`node --import tsx --import ./tests/crash/crash-point.ts …`):
 * counts the steps that leave a trace outside the process — each COMMIT, each write outside a
 * transaction, each outbound HTTP call — and kills the process with SIGKILL at the one that
 * IDEM_CRASH_AT names. Product code carries no hook: the counting wraps `pg` and listens on undici's
 * diagnostics channels (Node's fetch and the outbound policy's undici both publish there).
 * docs/crash-tests.md explains the points.
 *
 *   before-commit:N  the Nth commit step is about to be sent (its transaction dies open: rolled back)
 *   after-commit:N   the Nth commit step has been answered (committed; nothing after it ran)
 *   before-call:N    the Nth outbound request is about to be sent (the upstream never sees it)
 *   during-call:N    the Nth outbound request's answer has arrived (the upstream acted; nobody reads it)
 *
 * IDEM_CRASH_LOG, when set, gets one line per step ("commit 3 COMMIT", "call 1 GET http://…").
 */

type Point = { when: "before" | "after" | "during"; what: "commit" | "call"; n: number };

function parsePoint(text: string | undefined): Point | null {
  if (!text) return null;
  const match = /^(before|after|during)-(commit|call):(\d+)$/.exec(text);
  if (!match)
    throw new Error(
      `IDEM_CRASH_AT: expected before-commit:N, after-commit:N, before-call:N or during-call:N, got ${text}`,
    );
  return { when: match[1] as Point["when"], what: match[2] as Point["what"], n: Number(match[3]) };
}

const point = parsePoint(process.env.IDEM_CRASH_AT);
const logFile = process.env.IDEM_CRASH_LOG;
const counts = { commit: 0, call: 0 };

function log(line: string): void {
  if (logFile) appendFileSync(logFile, `${line}\n`);
}

/** Dies here: SIGKILL to itself, then blocks so no further JavaScript runs while the signal lands. */
function die(reason: string): never {
  log(`killed ${reason}`);
  process.kill(process.pid, "SIGKILL");
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10_000);
  throw new Error("SIGKILL did not arrive");
}

function at(when: Point["when"], what: Point["what"], n: number): boolean {
  return point !== null && point.when === when && point.what === what && point.n === n;
}

// --- the database: COMMITs and autocommitted writes ---------------------------------------------

const IN_TRANSACTION = Symbol("crash-point: in transaction");
type TrackedClient = pg.Client & { [IN_TRANSACTION]?: boolean };

const WRITE = /^\s*(INSERT|UPDATE|DELETE|MERGE|TRUNCATE)\b/i;
const WITH_WRITE = /^\s*WITH\b[\s\S]*\b(INSERT|UPDATE|DELETE)\b/i;

/** Whether this statement, on this connection, is a step: a COMMIT, or a write outside a transaction. */
function isCommitStep(client: TrackedClient, text: string): boolean {
  if (/^\s*(BEGIN|START\s+TRANSACTION)\b/i.test(text)) {
    client[IN_TRANSACTION] = true;
    return false;
  }
  if (/^\s*(COMMIT|END)\b/i.test(text)) {
    client[IN_TRANSACTION] = false;
    return true;
  }
  if (/^\s*ROLLBACK\s*$/i.test(text)) {
    client[IN_TRANSACTION] = false;
    return false;
  }
  return !client[IN_TRANSACTION] && (WRITE.test(text) || WITH_WRITE.test(text));
}

type Callback = (error: Error | null, result: unknown) => void;
const originalQuery = pg.Client.prototype.query as (this: pg.Client, ...args: unknown[]) => unknown;

(pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown }).query = function (
  this: TrackedClient,
  ...args: unknown[]
) {
  const config = args[0];
  const text =
    typeof config === "string"
      ? config
      : typeof (config as { text?: unknown } | null)?.text === "string"
        ? (config as { text: string }).text
        : "";
  if (!isCommitStep(this, text)) return originalQuery.apply(this, args);
  const n = ++counts.commit;
  log(`commit ${n} ${text.trim().replace(/\s+/g, " ").slice(0, 80)}`);
  if (at("before", "commit", n)) die(`before commit ${n}`);
  if (!at("after", "commit", n)) return originalQuery.apply(this, args);
  // pg answers by promise, or by the callback given last (the pool's own queries).
  const last = args[args.length - 1];
  if (typeof last === "function") {
    const callback = last as Callback;
    args[args.length - 1] = (error: Error | null, result: unknown) => {
      if (!error) die(`after commit ${n}`);
      callback(error, result);
    };
    return originalQuery.apply(this, args);
  }
  return (originalQuery.apply(this, args) as Promise<unknown>).then(() => die(`after commit ${n}`));
};

// --- outbound calls: undici's diagnostics channels ------------------------------------------------

type UndiciRequest = { method?: string; origin?: string; path?: string };
const callNumbers = new WeakMap<object, number>();

subscribe("undici:request:create", (message) => {
  const request = (message as { request: UndiciRequest }).request;
  const n = ++counts.call;
  callNumbers.set(request, n);
  log(`call ${n} ${request.method ?? "?"} ${request.origin ?? ""}${request.path ?? ""}`);
  if (at("before", "call", n)) die(`before call ${n}`);
});

subscribe("undici:request:headers", (message) => {
  const n = callNumbers.get((message as { request: object }).request);
  if (n !== undefined && at("during", "call", n)) die(`during call ${n}`);
});
