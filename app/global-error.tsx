"use client";

// Last resort when even the root layout fails: a plain page, no stack trace.
export default function GlobalError({ error }: { error: Error & { digest?: string } }) {
  return (
    <html lang="en">
      <body style={{ fontFamily: "system-ui, sans-serif", padding: "3rem" }}>
        <h1>Idem Console could not answer</h1>
        <p>Nothing was changed. The error is in the server log{error.digest ? ` (id ${error.digest})` : ""}.</p>
      </body>
    </html>
  );
}
