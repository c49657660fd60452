import { DATABASE_UNAVAILABLE_PATH } from "@/lib/db/page-fault";

/** Seconds a client (and this page's own refresh) waits before trying again. */
export const RETRY_AFTER_SECONDS = 5;

/** Only a path on this site: `from` is the reader's input and must not send them elsewhere. */
export function safeReturnPath(from: string | null): string {
  if (
    !from ||
    !from.startsWith("/") ||
    from.startsWith("//") ||
    from.startsWith("/\\") ||
    from.startsWith(DATABASE_UNAVAILABLE_PATH)
  )
    return "/";
  return from;
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The page a reader gets while the console's database cannot answer: 503 with Retry-After, naming
 * the database as the cause, retrying the page they asked for on its own. It says nothing of where
 * the database is (the visitor may not be signed in).
 */
export function databaseUnavailablePage(from: string | null, nonce: string | null): Response {
  const back = escapeHtml(safeReturnPath(from));
  const nonceAttribute = nonce ? ` nonce="${escapeHtml(nonce)}"` : "";
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="${RETRY_AFTER_SECONDS};url=${back}">
<title>Database unavailable · Idem Console</title>
<style${nonceAttribute}>body{font-family:system-ui,sans-serif;margin:0;padding:3rem 1.5rem;color:#0f172a;background:#f8fafc}main{max-width:36rem;margin:0 auto;background:#fff;border:1px solid #fecaca;border-radius:.5rem;padding:1.25rem}h1{font-size:1.125rem;color:#991b1b;margin:0}p{font-size:.875rem;line-height:1.5}a{color:#0f172a}</style>
</head>
<body>
<main role="alert">
<h1>The console's database is unavailable</h1>
<p>The console cannot reach its PostgreSQL database right now (it is restarting, refusing connections or not answering in time). Nothing was changed.</p>
<p>This page tries again in ${RETRY_AFTER_SECONDS} seconds. <a href="${back}">Try again now</a>.</p>
</main>
</body>
</html>
`;
  return new Response(html, {
    status: 503,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "retry-after": String(RETRY_AFTER_SECONDS),
      "cache-control": "no-store",
    },
  });
}
