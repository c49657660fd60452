import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { KeyProtectionText } from "@/components/records-detail/key-protection-text";

/** The words a reader sees (tags dropped). */
function words(trimmedAfter: string, now: Date): string {
  const html = renderToStaticMarkup(
    createElement(KeyProtectionText, { protection: { kind: "business_key", until: null, trimmedAfter }, now }),
  );
  return html.replace(/<[^>]+>/g, "");
}

describe("a business key's protection, in words", () => {
  const now = new Date("2026-12-07T12:00:00Z");

  it("before its retention ends: when trim may delete it", () => {
    expect(words("2026-12-07T12:07:00Z", now)).toBe(
      "business key: until the row is trimmed or released (trim may delete it in 7 min)",
    );
  });

  it("after: trim may delete it now, past its retention since then — never 'may delete it … ago'", () => {
    const text = words("2026-12-07T11:48:00Z", now);
    expect(text).toBe(
      "business key: until the row is trimmed or released (trim may delete it now: past its retention since 12 min ago)",
    );
    expect(text).not.toMatch(/may delete it \d/);
  });
});
