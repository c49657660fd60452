import type { ToolsAudit } from "./build-audit";
import type { LatestVerification } from "@/lib/annotations/tool-verification-types";
import { HINT_NAMES } from "@/lib/tool-listings/annotation-types";
import { describeChange } from "./snapshot-diff";
import { alsoUnresolvedText, verdictSummaryText } from "./verdict-summary";
import { escapeMarkdown } from "@/lib/text/markdown-escape";
import { REPEAT_DELAY_BANDS } from "@/lib/repeats/repeat-delay-band";
import type { ToolEvidence } from "./tool-audit-types";

/** The audit as JSON for a code review: the API's shape, pretty-printed. */
export function auditToJson(audit: ToolsAudit): string {
  return `${JSON.stringify(audit, null, 2)}\n`;
}

/** The audit as Markdown for a code review: servers, then one section per tool, worst first. */
export function auditToMarkdown(audit: ToolsAudit): string {
  const lines: string[] = [];
  lines.push(
    `# MCP tool annotation audit`,
    "",
    `Window: last ${audit.window} from the start of its first hour: [${audit.since}, ${audit.generatedAt}), generated ${audit.generatedAt}. Every figure counts over exactly this window.`,
    "",
    "## Servers",
    "",
  );
  lines.push(
    "| server | transport | status | listed | tools | changes since previous listing |",
    "|---|---|---|---|---|---|",
  );
  for (const s of audit.servers) {
    const status =
      s.status === "error" ? `error: ${s.reason ?? ""}` : s.status === "never_listed" ? "never listed" : "ok";
    lines.push(
      `| ${cell(s.name)} | ${cell(s.transport)} | ${cell(status)} | ${s.listedAt ?? "—"}${s.listingSource === "upload" ? " (upload)" : ""} | ${s.toolCount} | ${cell(s.changes.map((c) => `${c.tool}: ${describeChange(c)}`).join("; ") || "—")} |`,
    );
  }
  const unresolved = alsoUnresolvedText(audit.summary);
  lines.push(
    "",
    "## Tools",
    "",
    `Verdicts: ${verdictSummaryText(audit.summary)}.`,
    "",
    audit.scannedThrough === null
      ? "Duplicates, refused arguments and repeat delays: the duplicate scan has not run yet; nothing is counted."
      : `Duplicates, refused arguments and repeat delays count claims and events before ${audit.scannedThrough} (the duplicate scan's watermark).`,
    ...(unresolved ? [`${unresolved[0]!.toUpperCase()}${unresolved.slice(1)}.`] : []),
    "",
  );
  lines.push(
    "| server | tool | verdict | idempotentHint (declared → effective) | records | replays | rejections | outcome unknown | stuck | duplicates through | arguments refused | repeats: at once / seconds / around timeout / minutes / near window end | last seen | double-call test |",
    "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
  );
  const order = { danger: 0, warn: 1, info: 2, neutral: 3, good: 4 } as const;
  const tools = [...audit.tools].sort(
    (a, b) =>
      order[a.tone] - order[b.tone] || (a.server ?? "").localeCompare(b.server ?? "") || a.name.localeCompare(b.name),
  );
  for (const t of tools) {
    const declared = t.declared?.idempotentHint === undefined ? "absent" : String(t.declared.idempotentHint);
    const effective =
      t.effective === null
        ? "—"
        : t.effective.idempotentHint === null
          ? "n/a (read-only)"
          : String(t.effective.idempotentHint);
    const e = t.evidence;
    lines.push(
      `| ${cell(t.server ?? "(not listed)")} | ${cell(t.name)} | ${cell(t.verdictLabel)}${t.certain ? "" : " (uncertain)"} | ${declared} → ${effective} | ${e.records} | ${e.replays} | ${e.rejections} | ${e.outcomeUnknown} | ${e.stuck} | ${e.duplicatesThrough ?? "not recorded"} | ${e.argumentsMismatches ?? "not recorded"} | ${repeatsCell(e.repeatDelays)} | ${e.lastSeen ?? "never"} | ${testCell(t.verification)} |`,
    );
  }
  for (const t of tools) {
    lines.push("", `### ${cell(t.server ?? "(not listed)")} / ${cell(t.name)} — ${cell(t.verdictLabel)}`, "");
    if (t.declared)
      lines.push(
        `Declared: ${
          HINT_NAMES.filter((h) => t.declared?.[h] !== undefined)
            .map((h) => `${h}: ${cell(String(t.declared?.[h]))}`)
            .join(", ") || "no annotations"
        }.`,
        "",
      );
    // Explanations and fixes are ours but quote tool names from the servers: escaped whole.
    lines.push(cell(t.explanation), "");
    if (t.fix) lines.push(`**Fix:** ${cell(t.fix)}`, "");
    if (t.verification) lines.push(...testSection(t.verification));
    if (t.changes.length) lines.push(`Changed since the previous listing: ${cell(t.changes.join("; "))}.`, "");
  }
  return `${lines.join("\n").trimEnd()}\n`;
}

/** "verified", "failed (table)", "inconclusive (answers), stale", or "—" for a tool never verified. */
function testCell(run: LatestVerification | null): string {
  if (!run) return "—";
  return `${run.verdict}${run.step && run.verdict !== "verified" ? ` (${run.step})` : ""}${run.stale ? ", stale" : ""}`;
}

/** The latest run: who ran it and when, its sentence, each side's finding and each call's answer. */
function testSection(run: LatestVerification): string[] {
  const lines = [
    `**Double-call test:** ${testCell(run)} — run by ${cell(run.verifiedBy)} at ${run.finishedAt}, ${run.concurrency} calls at once then one after (arguments sha256 ${run.argumentsHash.slice(0, 12)}…): ${cell(run.summary)}${run.stale ? " Stale: the tool's listing entry has changed since this run." : ""}`,
    "",
  ];
  for (const check of run.evidence.checks) lines.push(`- ${check.step}: ${check.result} — ${cell(check.detail)}`);
  for (const call of run.evidence.calls)
    lines.push(
      `- call (${call.phase}): ${call.outcome}${call.ref ? ` — ref ${cell(call.ref)}` : ""}, ${Math.round(call.ms)} ms`,
    );
  if (run.evidence.checks.length + run.evidence.calls.length > 0) lines.push("");
  return lines;
}

/** Every value from an MCP server, or quoting one, is escaped before it goes into the Markdown. */
function cell(text: string): string {
  return escapeMarkdown(text);
}

/** The five bands' counts in order, or "none recorded" (a writer that records no events shows none). */
function repeatsCell(delays: ToolEvidence["repeatDelays"]): string {
  if (delays === null) return "none recorded";
  return REPEAT_DELAY_BANDS.map((b) => delays.bands[b.band]).join(" / ");
}
