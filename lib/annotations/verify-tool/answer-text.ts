import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { canonicalJcs } from "idem-guard";
import { redactJson, type Redaction } from "@/lib/privacy/redact";

/** The answer as the evidence keeps it: text content only, cut to 2,000 characters. */
export const MAX_ANSWER_TEXT = 2_000;

export function textOfResult(result: CallToolResult): string {
  return result.content
    .filter((c): c is Extract<CallToolResult["content"][number], { type: "text" }> => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

/**
 * What an answer says, comparable across calls: its structured content, else its text parsed as
 * JSON, else the text itself; as RFC 8785 canonical JSON, because a stored response comes back
 * from jsonb with its keys in another order than the first answer had them.
 */
export function comparableContent(result: CallToolResult): string {
  if (result.structuredContent) return canonicalOf(result.structuredContent);
  const text = textOfResult(result);
  try {
    return canonicalOf(JSON.parse(text) as unknown);
  } catch {
    return JSON.stringify(text);
  }
}

/** Canonical JSON of a value already parsed (a stored jsonb response, an answer's content). */
export function canonicalOf(value: unknown): string {
  return canonicalJcs(JSON.stringify(value ?? null));
}

/**
 * An answer's text as the evidence keeps it: masked like every stored response (the configured
 * paths, e-mail addresses, card numbers), because every role reads the latest run on the Tools page.
 */
export function maskedAnswerText(text: string, redaction: Redaction): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text) as unknown;
  } catch {
    return String(redactJson(text, redaction).value);
  }
  return JSON.stringify(redactJson(parsed, redaction).value);
}
