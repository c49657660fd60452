import type { ServerAuditStatus } from "@/lib/annotations/build-audit";
import { describeChange } from "@/lib/annotations/snapshot-diff";

/** Each server: where it is, whether its newest listing worked (or why not), and what changed since the previous one. */
export function ServerStatusList({ servers }: { servers: ServerAuditStatus[] }) {
  if (servers.length === 0) {
    return (
      <p
        className="rounded-lg border border-dashed border-slate-300 bg-white p-4 text-sm text-slate-600"
        data-testid="no-servers"
      >
        No MCP servers: name them in idem.config.json (mcpServers), or add an HTTP server below.
      </p>
    );
  }
  return (
    <ul className="grid gap-3 md:grid-cols-2" data-testid="server-statuses">
      {servers.map((server) => (
        <li
          key={server.name}
          className="rounded-lg border border-slate-200 bg-white p-3 text-sm"
          data-server={server.name}
          data-status={server.status}
        >
          <div className="flex flex-wrap items-center gap-2">
            <span className="font-semibold">{server.name}</span>
            <span className="rounded bg-slate-100 px-1.5 text-[11px] text-slate-600">{server.transport}</span>
            <span className="text-[11px] text-slate-500">
              {server.origin === "config"
                ? "from idem.config.json"
                : server.origin === "ui"
                  ? "added in the console"
                  : "uploads only"}
            </span>
            {server.verifiable ? (
              <span
                className="rounded bg-violet-50 px-1.5 text-[11px] text-violet-800"
                title='idem.config.json marks it "verify": true: an admin may run the double-call test on its tools'
                data-testid="server-verifiable"
              >
                verify: staging
              </span>
            ) : null}
            <span className="ml-auto whitespace-nowrap">
              {server.status === "ok" ? (
                <span className="rounded-full bg-emerald-50 px-2 py-0.5 text-xs font-medium text-emerald-800 ring-1 ring-emerald-200 ring-inset">
                  ok
                </span>
              ) : server.status === "error" ? (
                <span className="rounded-full bg-red-50 px-2 py-0.5 text-xs font-medium text-red-800 ring-1 ring-red-200 ring-inset">
                  unreachable
                </span>
              ) : (
                <span className="rounded-full bg-slate-100 px-2 py-0.5 text-xs font-medium text-slate-700 ring-1 ring-slate-200 ring-inset">
                  never listed
                </span>
              )}
            </span>
          </div>
          {server.target ? (
            <p className="mt-1 truncate font-mono text-xs text-slate-600" title={server.target}>
              {server.target}
            </p>
          ) : null}
          {server.headerNames.length > 0 ? (
            <p className="text-xs text-slate-500">headers: {server.headerNames.join(", ")} (values hidden)</p>
          ) : null}
          {server.status === "error" ? (
            <p className="mt-1 text-xs text-red-800" data-testid="server-error">
              {server.reason}
            </p>
          ) : null}
          <p className="mt-1 text-xs text-slate-500">
            {server.listedAt
              ? `${server.toolCount} tools, listed ${server.listedAt.slice(0, 16).replace("T", " ")} UTC${server.listingSource === "upload" ? " (uploaded)" : ""}`
              : "no listing yet"}
            {server.status === "error" && server.listedAt ? " — the audit uses this last good listing" : ""}
          </p>
          {server.changes.length > 0 ? (
            <ul className="mt-1 list-disc pl-4 text-xs text-slate-700" data-testid="server-changes">
              {server.changes.map((change) => (
                <li key={`${change.tool}-${change.change}-${"hint" in change ? change.hint : ""}`}>
                  <span className="font-mono">{change.tool}</span>: {describeChange(change)}
                </li>
              ))}
            </ul>
          ) : server.previousListedAt ? (
            <p className="text-xs text-slate-500">no hint changed since the previous listing</p>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
