import "server-only";
import { headers } from "next/headers";
import { redirect } from "next/navigation";
import { databaseFaultOf, describeDatabaseError } from "@/lib/db/describe-error";
import { PAGE_PATH_HEADER } from "@/lib/db/page-path-header";

/** A route handler, because only a route handler can answer a page with 503 (a server component cannot set a status). */
export const DATABASE_UNAVAILABLE_PATH = "/database-unavailable";

/**
 * Rethrows a failed query's error — except while rendering a page, where a database that cannot
 * answer (unreachable, shut down, not answering, statement timeout) becomes a redirect to the 503
 * page instead of a 500 error page. API handlers never see the header, so they get the error itself.
 */
export async function rethrowForPage(error: unknown): Promise<never> {
  const fault = databaseFaultOf(error);
  if (fault === "unavailable" || fault === "timeout") {
    const from = await pagePath();
    if (from !== null) {
      console.error(`[page] database ${fault}:`, describeDatabaseError(error));
      redirect(`${DATABASE_UNAVAILABLE_PATH}?from=${encodeURIComponent(from)}`);
    }
  }
  throw error;
}

async function pagePath(): Promise<string | null> {
  try {
    return (await headers()).get(PAGE_PATH_HEADER);
  } catch {
    return null; // outside a request (start-up, after()): not a page
  }
}
