import { Link } from "@/components/ui/link";
import { serializeToolsParams, toolsSearchParams } from "@/lib/annotations/tools-search-params";
import { createSerializer, parseAsStringLiteral } from "nuqs/server";
import type { ToolsAudit } from "@/lib/annotations/build-audit";
import { AddServerForm } from "./add-server-form";
import { RefreshButton } from "./refresh-button";
import { ServerStatusList } from "./server-status-list";
import { ToolAuditTable } from "./tool-audit-table";
import { UploadListingForm } from "./upload-listing-form";
import { VerdictSummary } from "./verdict-summary";
import { api } from "@/components/ui/api-endpoints";
import { apiUrl } from "@/lib/api/api-url";
import { buttonClass } from "@/components/ui/button";
import { formatUtcRange } from "@/lib/format/utc-range";

const WINDOWS = ["24h", "48h", "7d"] as const;
// The export takes the page's window parameter, always written out: the API has no default for it.
const serializeExportParams = createSerializer(
  { window: toolsSearchParams.window, format: parseAsStringLiteral(["md", "json"] as const) },
  { clearOnDefault: false },
);

type Props = { audit: ToolsAudit; canRefresh: boolean; canConfigure: boolean; canReview: boolean; canVerify: boolean };

/** The tools page below its header: window and exports, servers, the per-tool audit, admin forms. */
export function ToolsView({ audit, canRefresh, canConfigure, canReview, canVerify }: Props) {
  // Only admins see "Verify…", and only on the servers idem.config.json marks for it (the route refuses the rest anyway).
  const verifiableServers = canVerify ? audit.servers.filter((s) => s.verifiable).map((s) => s.name) : [];
  return (
    <div className="space-y-6">
      <div className="flex flex-wrap items-center gap-3 rounded-lg border border-slate-200 bg-white p-3">
        <nav className="flex flex-wrap items-center gap-1 text-xs" aria-label="Evidence window">
          <span className="text-slate-500">Evidence over the last</span>
          {WINDOWS.map((w) => (
            <Link
              key={w}
              href={serializeToolsParams("/tools", { window: w })}
              aria-current={w === audit.window ? "page" : undefined}
              className={`rounded-md px-2 py-1 font-medium ${w === audit.window ? "bg-slate-900 text-white" : "text-slate-700 hover:bg-slate-100"}`}
            >
              {w}
            </Link>
          ))}
          <span
            className="ml-1 text-slate-500"
            data-testid="evidence-window"
            title={`Every figure counts from the start of the hour ${audit.window} before this page's instant, so the window spans ${audit.window} to ${audit.window} + 1 h`}
          >
            {formatUtcRange(audit.since, audit.generatedAt)}, from the start of the hour
          </span>
        </nav>
        <VerdictSummary summary={audit.summary} />
        <div className="ml-auto flex flex-wrap items-center gap-2">
          <span className="text-xs text-slate-500">Export for a code review</span>
          {(["md", "json"] as const).map((format) => (
            <a
              key={format}
              href={serializeExportParams(apiUrl(api.toolsAuditExport, {}), { format, window: audit.window })}
              download
              className={buttonClass({ variant: "secondary", size: "sm", className: "px-2.5" })}
            >
              {format === "md" ? "Markdown" : "JSON"}
            </a>
          ))}
          {canRefresh ? (
            <RefreshButton />
          ) : (
            <span className="text-xs text-slate-600">An operator can refresh the listings.</span>
          )}
        </div>
      </div>

      <section>
        <h2 className="mb-2 text-sm font-semibold text-slate-800">Servers</h2>
        <ServerStatusList servers={audit.servers} />
      </section>

      <section>
        <h2 className="mb-2 text-sm font-semibold text-slate-800">Tools</h2>
        <ToolAuditTable
          // Schemas go to the browser only where a Verify dialog shows them.
          tools={audit.tools.map((t) =>
            t.server !== null && verifiableServers.includes(t.server) ? t : { ...t, inputSchema: null },
          )}
          canReview={canReview}
          verifiableServers={verifiableServers}
        />
      </section>

      {canConfigure ? (
        <section
          className="grid gap-4 rounded-lg border border-slate-200 bg-white p-4 md:grid-cols-2"
          data-testid="admin-forms"
        >
          <AddServerForm />
          <UploadListingForm serverNames={audit.servers.map((s) => s.name)} />
        </section>
      ) : null}
    </div>
  );
}
