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
 * Asks /api/health every RETRY_AFTER_SECONDS and returns to `back` once it answers 200. Not a
 * <meta http-equiv="refresh">: that reloads the page on a timer whether or not anything changed,
 * which a screen reader user cannot stop (WCAG 2.2.1); this leaves the page alone until the
 * database is back, and says so in the status line first.
 */
function retryScript(back: string): string {
  const target = JSON.stringify(back).replace(/</g, "\\u003c");
  return `(function(){var back=${target};function check(){fetch("/api/health",{cache:"no-store"}).then(function(r){if(!r.ok)throw 0;document.getElementById("retry-status").textContent="The database answers again: going back.";location.assign(back)}).catch(function(){setTimeout(check,${RETRY_AFTER_SECONDS * 1000})})}setTimeout(check,${RETRY_AFTER_SECONDS * 1000})})();`;
}

/**
 * The page a reader gets while the console's database cannot answer: 503 with Retry-After, naming
 * the database as the cause, returning to the page they asked for on its own once the database answers. It says nothing of where
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
<title>Database unavailable · Idem Console</title>
<style${nonceAttribute}>body{font-family:system-ui,sans-serif;margin:0;padding:3rem 1.5rem;color:#0f172a;background:#f8fafc}main{max-width:36rem;margin:0 auto;background:#fff;border:1px solid #fecaca;border-radius:.5rem;padding:1.25rem}h1{font-size:1.125rem;color:#991b1b;margin:0}p{font-size:.875rem;line-height:1.5}a{color:#0f172a}</style>
</head>
<body>
<main>
<div role="alert">
<h1>The console's database is unavailable</h1>
<p>The console cannot reach its PostgreSQL database right now (it is restarting, refusing connections or not answering in time). Nothing was changed.</p>
</div>
<p>This page checks every ${RETRY_AFTER_SECONDS} seconds and takes you back once the database answers. <a href="${back}">Try again now</a>.</p>
<p id="retry-status" role="status"></p>
</main>
<script${nonceAttribute}>${retryScript(safeReturnPath(from))}</script>
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
