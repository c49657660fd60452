import { databaseUnavailablePage } from "@/lib/pages/database-unavailable-page";

/** Where a page that could not reach the database sends its reader: a 503 page (see lib/db/page-fault.ts). */
export function GET(request: Request) {
  return databaseUnavailablePage(new URL(request.url).searchParams.get("from"), request.headers.get("x-nonce"));
}
