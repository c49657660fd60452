import { request } from "node:http";
import { performance } from "node:perf_hooks";
import { gzipSync } from "node:zlib";
import { summarise, type LatencySummary } from "./percentiles";

export type PageWeight = {
  path: string;
  scripts: number;
  /** The page's own <script src> files, as served and gzip -9'd here (what a browser downloads compressed). */
  javascriptKb: { raw: number; gzip: number };
  /** Each of those scripts, largest first: where the weight is. */
  scriptFiles: { src: string; gzipKb: number }[];
  /**
   * `<script nomodule>` files (Next's legacy polyfills), not in javascriptKb: a browser with ES
   * modules (every one the console supports) never downloads them.
   */
  noModuleKb: { scripts: number; gzip: number };
  htmlKb: { raw: number; gzip: number };
  /** Request sent to the first byte of the response (status line and headers), signed in. */
  ttfbMs: LatencySummary;
  /** Request sent to the last byte of the streamed HTML. */
  fullMs: LatencySummary;
};

/**
 * The records page as a signed-in browser gets it: every script the HTML references (its script
 * tags and the chunks its RSC payload names; not nomodule polyfills) is fetched and compressed; time to first byte and to the last byte of the streamed HTML, `iterations` times.
 */
export async function measurePageWeight(
  baseUrl: string,
  cookie: string,
  path: string,
  iterations: number,
): Promise<PageWeight> {
  const first = await get(baseUrl, path, cookie);
  if (first.status !== 200) throw new Error(`${path} answered ${first.status} to a signed-in request`);
  const html = first.body.toString("utf8");
  // A page that redirects after streaming began still answers 200: make sure this is the signed-in page.
  if (!html.includes('data-testid="facets"'))
    throw new Error(`${path} did not render the records page for the signed-in bench user (a sign-in redirect?)`);
  const tags = [...html.matchAll(/<script[^>]+src="([^"]+\.js[^"]*)"[^>]*>/g)];
  const isNoModule = (tag: string) => /\snomodule(?:[\s=>])/i.test(tag);
  const noModule = [...new Set(tags.filter((m) => isNoModule(m[0])).map((m) => m[1]!))];
  // And the chunks the page's RSC payload names (client components' chunks the runtime loads).
  const named = [...html.matchAll(/\/_next\/static\/chunks\/[\w.~-]+\.js/g)].map((m) => m[0]);
  const fileOf = (src: string) => src.replace(/[?#].*$/, "");
  const skipped = new Set(noModule.map(fileOf));
  const sources = [
    ...new Map(
      [...tags.filter((m) => !isNoModule(m[0])).map((m) => m[1]!), ...named]
        .filter((src) => !skipped.has(fileOf(src)))
        .map((src) => [fileOf(src), src] as const),
    ).values(),
  ];
  const kb = (bytes: number) => Math.round((bytes / 1024) * 10) / 10;
  let raw = 0;
  let gzip = 0;
  const scriptFiles: PageWeight["scriptFiles"] = [];
  for (const src of sources) {
    const script = await get(baseUrl, src.replace(/&amp;/g, "&"), cookie);
    const compressed = gzipSync(script.body, { level: 9 }).length;
    raw += script.body.length;
    gzip += compressed;
    scriptFiles.push({ src, gzipKb: kb(compressed) });
  }
  let noModuleGzip = 0;
  for (const src of noModule)
    noModuleGzip += gzipSync((await get(baseUrl, src.replace(/&amp;/g, "&"), cookie)).body, { level: 9 }).length;
  const ttfb: number[] = [];
  const full: number[] = [];
  for (let k = 0; k < iterations; k += 1) {
    const response = await get(baseUrl, path, cookie);
    ttfb.push(response.ttfbMs);
    full.push(response.fullMs);
  }
  return {
    path,
    scripts: sources.length,
    javascriptKb: { raw: kb(raw), gzip: kb(gzip) },
    scriptFiles: scriptFiles.sort((a, b) => b.gzipKb - a.gzipKb),
    noModuleKb: { scripts: noModule.length, gzip: kb(noModuleGzip) },
    htmlKb: { raw: kb(first.body.length), gzip: kb(gzipSync(first.body, { level: 9 }).length) },
    ttfbMs: summarise(ttfb),
    fullMs: summarise(full),
  };
}

function get(
  baseUrl: string,
  path: string,
  cookie: string,
): Promise<{ status: number; body: Buffer; ttfbMs: number; fullMs: number }> {
  const url = new URL(path, baseUrl);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = request(url, { headers: { cookie, "accept-encoding": "identity" } }, (response) => {
      const ttfbMs = performance.now() - started;
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () =>
        resolve({
          status: response.statusCode ?? 0,
          body: Buffer.concat(chunks),
          ttfbMs,
          fullMs: performance.now() - started,
        }),
      );
      response.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}
