import { contractRoute } from "@/lib/api/contract-route";
import { API_CACHE_CONTROL } from "@/lib/security/security-headers";
import { methodsNotAllowed } from "@/lib/api/method-not-allowed";
import { prometheusScrapeContract } from "@/lib/api/contracts/operations";
import { getConfig } from "@/lib/config/load";
import { env } from "@/lib/config/environment";
import { PROMETHEUS_CONTENT_TYPE, toExposition } from "@/lib/metrics/prometheus-exposition";
import { readScrapeFigures } from "@/lib/metrics/scrape-figures";
import packageJson from "@/package.json";

export const GET = contractRoute(prometheusScrapeContract, async ({ readDb, actor, request }) => {
  const figures = await readScrapeFigures(readDb, getConfig(), actor, new Date());
  // Alerts link here: the console's public URL, else the address Prometheus scraped.
  const consoleUrl = (env().NEXTAUTH_URL ?? new URL(request.url).origin).replace(/\/+$/, "");
  const body = await toExposition(figures, { version: packageJson.version, consoleUrl });
  return new Response(body, {
    headers: { "content-type": PROMETHEUS_CONTENT_TYPE, "cache-control": API_CACHE_CONTROL },
  });
});

export const { POST, PUT, PATCH, DELETE, OPTIONS } = methodsNotAllowed(prometheusScrapeContract.method);
