// What a signed-in page load asks of the console's server in a real Chromium: the requests it makes
// (full loads, RSC prefetches) and the CPU the server's processes spend on them (docs/test-time.md, "Stop 51").
// Usage: npx tsx tools/bench/page-load-requests.ts --url http://localhost:3000 --pid <launcher pid> [--loads 10]
// The pid is the `idem demo` / `idem serve` launcher: its process tree (next start, an embedded database) is summed.
import { parseArgs } from "node:util";
import { chromium } from "playwright-core";
import { cpuTicks, processTree } from "./cpu-affinity";

const PAGES = ["/", "/records", "/stuck", "/duplicates", "/audit", "/metrics", "/tools"];
const TICKS_PER_SECOND = 100;

const { values } = parseArgs({
  options: {
    url: { type: "string", default: "http://localhost:3000" },
    pid: { type: "string" },
    loads: { type: "string", default: "10" },
    email: { type: "string", default: "admin@demo.test" },
    password: { type: "string", default: "demo" },
  },
});
const base = values.url.replace(/\/$/, "");
const root = Number(values.pid);
const loads = Number(values.loads);
if (!Number.isInteger(root) || root <= 0 || !Number.isInteger(loads) || loads <= 0) {
  console.error("usage: --url URL --pid <launcher pid> [--loads N]");
  process.exit(2);
}
const serverTicks = () => processTree(root).reduce((sum, pid) => sum + (cpuTicks(pid) ?? 0), 0);

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
});
try {
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  await page.goto(`${base}/sign-in`);
  await page.fill('input[name="email"]', values.email);
  await page.fill('input[name="password"]', values.password);
  await Promise.all([
    page.waitForURL((u) => !u.pathname.startsWith("/sign-in")),
    page.press('input[name="password"]', "Enter"),
  ]);
  let rsc = 0;
  page.on("request", (request) => {
    if (request.headers()["rsc"]) rsc += 1;
  });
  console.log(`${loads} loads of each page, waited to network idle; server: the process tree of pid ${root}`);
  console.log("page           RSC requests/load   server CPU ms/load   wall ms/load");
  for (const path of PAGES) {
    await page.goto(`${base}${path}`, { waitUntil: "networkidle" }); // warm: the first render compiles nothing, but fills caches
    rsc = 0;
    const ticks = serverTicks();
    const started = performance.now();
    for (let i = 0; i < loads; i++) await page.goto(`${base}${path}`, { waitUntil: "networkidle" });
    const cpuMs = ((serverTicks() - ticks) / TICKS_PER_SECOND / loads) * 1000;
    const wallMs = (performance.now() - started) / loads;
    console.log(
      `${path.padEnd(14)} ${(rsc / loads).toFixed(1).padStart(17)} ${cpuMs.toFixed(0).padStart(20)} ${wallMs.toFixed(0).padStart(14)}`,
    );
  }
} finally {
  await browser.close();
}
