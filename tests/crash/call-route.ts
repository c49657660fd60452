import { register } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";

/**
 * A crash test's child for the paths only the API offers (resolve, bulk apply, reveal): calls the
 * real route handler in-process with a Request and an API token, as a Next server would, and
 * prints the status and body. Starting a Next server per kill would be far slower; the handler,
 * its authentication, its transaction and its audit row are the same code.
 *
 * IDEM_CRASH_ROUTE (JSON): { module, params, url, token, body }; module is the route's bundle (tests/crash/crash-run.ts).
 */
type RouteCall = { module: string; params: Record<string, string>; url: string; token: string; body: unknown };
type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

// Run as Next runs a route: React's full build (not react-server's, which lacks what next/navigation
// needs), and "server-only" an empty module, as Next and the tests' alias make it. Next's entry points
// (next/navigation, next/server) are files without an exports map: Node's ESM wants their ".js".
register(
  `data:text/javascript,${encodeURIComponent(
    `export async function resolve(specifier, context, next) {
      if (specifier === "server-only") return { url: "data:text/javascript,", shortCircuit: true };
      return next(/^next\\/[\\w-]+$/.test(specifier) ? specifier + ".js" : specifier, context);
    }`,
  )}`,
);

const call = JSON.parse(process.env.IDEM_CRASH_ROUTE ?? "null") as RouteCall | null;
if (!call) throw new Error("IDEM_CRASH_ROUTE is not set");
const { POST } = (await import(pathToFileURL(path.resolve(call.module)).href)) as { POST: Handler };
const response = await POST(
  new Request(`http://console.test${call.url}`, {
    method: "POST",
    headers: { authorization: `Bearer ${call.token}`, "content-type": "application/json" },
    body: JSON.stringify(call.body),
  }),
  { params: Promise.resolve(call.params) },
);
process.stdout.write(`${response.status} ${await response.text()}\n`);
// The console's pools would keep the process alive.
process.exit(response.status < 500 ? 0 : 1);
