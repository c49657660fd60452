import { REDACTED } from "@/lib/privacy/redact";

/**
 * What an audit entry is about when it is not one record: "shop / create_shipment: failed at table" for a
 * double-call test, "token ci-scraper" for a token. Read from the entry's own before / after /
 * evidence (already masked), so a list can say it without opening Details. Null: nothing to add.
 */
export type AuditSubject = { label: string; href: string | null };

type Parts = { before: unknown; after: unknown; evidence: unknown };

const MAX_LABEL = 120;

function field(value: unknown, name: string): string | null {
  if (typeof value !== "object" || value === null) return null;
  const found = (value as Record<string, unknown>)[name];
  // A masked value names nothing: the label falls back to another field, or says nothing.
  if (typeof found === "string" && found.trim() !== "" && found !== REDACTED) return found;
  if (typeof found === "number" && Number.isFinite(found)) return String(found);
  return null;
}

function list(value: unknown, name: string): unknown[] | null {
  if (typeof value !== "object" || value === null) return null;
  const found = (value as Record<string, unknown>)[name];
  return Array.isArray(found) ? found : null;
}

function toolLabel(part: unknown, suffix: string | null): string | null {
  const server = field(part, "server");
  const tool = field(part, "tool");
  if (!server || !tool) return null;
  return `${server} / ${tool}${suffix ? `: ${suffix}` : ""}`;
}

function plural(n: number, one: string, many: string): string {
  return `${n.toLocaleString("en")} ${n === 1 ? one : many}`;
}

function labelOf(action: string, { before, after, evidence }: Parts): { label: string | null; href: string | null } {
  switch (action) {
    case "tool.verify": {
      // As the run's badge on the Tools page words it: "verified", "failed at table", "inconclusive at answers".
      const verdict = field(after, "verdict");
      const step = field(after, "step");
      return {
        label: toolLabel(after, verdict && verdict !== "verified" && step ? `${verdict} at ${step}` : verdict),
        href: "/tools",
      };
    }
    case "annotation.review":
      return { label: toolLabel(after, "reviewed"), href: "/tools" };
    case "tools.server.add":
      return { label: field(after, "name") && `server ${field(after, "name")}`, href: "/tools" };
    case "tools.upload": {
      const tools = list(after, "tools");
      const server = field(after, "server");
      return { label: server && `${server}: ${plural(tools?.length ?? 0, "tool", "tools")}`, href: "/tools" };
    }
    case "tools.refresh": {
      const servers = (list(after, "servers") ?? []).map((s) => field(s, "server")).filter((s) => s !== null);
      return { label: servers.length > 0 ? servers.join(", ") : null, href: "/tools" };
    }
    case "token.create":
      return {
        label: field(after, "name") && `token ${field(after, "name")} (${field(after, "role") ?? "?"})`,
        href: null,
      };
    case "token.revoke":
      return { label: field(before, "name") && `token ${field(before, "name")}`, href: null };
    case "metrics.recount":
      return { label: field(evidence, "from") && `metrics from ${field(evidence, "from")}`, href: "/metrics" };
    case "retention.trim":
    case "retention.trim_unresolved":
    case "retention.trim_events": {
      const deleted = Number(field(evidence, "deleted"));
      const what = action === "retention.trim_events" ? "events" : action === "retention.trim" ? "rows" : "claims";
      const cutoff = field(evidence, "cutoff");
      return {
        label: Number.isFinite(deleted) && cutoff ? `${deleted.toLocaleString("en")} ${what} before ${cutoff}` : null,
        href: null,
      };
    }
    case "auth.sign_in_failed":
      return { label: field(evidence, "account"), href: null };
    case "access.denied": {
      const method = field(evidence, "method");
      const path = field(evidence, "path");
      return { label: method && path ? `${method} ${path}` : null, href: null };
    }
    default:
      if (action.startsWith("user.")) {
        // The e-mail is masked by the default redaction: then the name, or the id, with the role.
        const part = field(after, "id") ? after : before;
        const who = field(part, "email") ?? field(part, "name") ?? (field(part, "id") && `#${field(part, "id")}`);
        const role = field(part, "role");
        return { label: who && `user ${who}${role ? ` (${role})` : ""}`, href: null };
      }
      return { label: null, href: null };
  }
}

export function auditSubject(action: string, parts: Parts): AuditSubject | null {
  const { label, href } = labelOf(action, parts);
  if (!label) return null;
  return { label: label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label, href };
}
