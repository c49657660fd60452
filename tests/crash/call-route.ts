import { register } from "node:module";
import path from "node:path";

/**
 * A crash test's child for the paths only the API offers (resolve, bulk apply, reveal): calls the
 * real route handler in-process with a Request and an API token, as a Next server would, and
 * prints the status and body. Starting a Next server per kill would be far slower; the handler,
 * its authentication, its transaction and its audit row are the same code.
 *
 * IDEM_CRASH_ROUTE (JSON): { module: "app/api/v1/…/route.ts", params, url, token, body }.
 */
type RouteCall = { module: string; params: Record<string, string>; url: string; token: string; body: unknown };
type Handler = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

// Run as Next runs a route: React's full build (not react-server's, which lacks what next/navigation
// needs), and "server-only" an empty module, as Next and the tests' alias make it.
register(
  `data:text/javascript,${encodeURIComponent(
    `export async function resolve(specifier, context, next) {
      return specifier === "server-only" ? { url: "data:text/javascript,", shortCircuit: true } : next(specifier, context);
    }`,
  )}`,
);

const call = JSON.parse(process.env.IDEM_CRASH_ROUTE ?? "null") as RouteCall | null;
if (!call) throw new Error("IDEM_CRASH_ROUTE is not set");
const { POST } = (await import(path.resolve(call.module))) as { POST: Handler };
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
