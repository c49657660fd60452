"use client";

import { Button } from "@/components/ui/button";

// A failure while rendering a console page: say so plainly, never a stack trace.
export default function ConsoleError({ error, reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div role="alert" className="max-w-xl rounded-lg border border-red-200 bg-white p-5">
      <h1 className="text-lg font-semibold text-red-800">This page could not be loaded</h1>
      <p className="mt-2 text-sm text-slate-700">
        The console could not answer, most often because its database is unreachable. Nothing was changed.
      </p>
      {error.digest ? (
        <p className="mt-2 font-mono text-xs text-slate-500">error id {error.digest} (in the server log)</p>
      ) : null}
      <Button variant="primary" size="md" className="mt-4" onClick={reset}>
        Try again
      </Button>
    </div>
  );
}
