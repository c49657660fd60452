import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// The gate is ESLint's react/forbid-elements (eslint.config.mjs), so an editor shows it too and
// code-style.test.ts fails on it; this file shows where it applies, on planted sources.
const RULE = "react/forbid-elements";

// Only this rule runs (the whole set runs in code-style.test.ts): parsing is most of the time left.
const eslint = new ESLint({ ruleFilter: ({ ruleId }) => ruleId === RULE });

async function forbidden(filePath: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath });
  return (result?.messages ?? []).filter((m) => m.ruleId === RULE).map((m) => m.message);
}

const PLANTED = `export function Planted() {
  return (
    <form>
      <input name="a" />
      <select name="b" />
      <textarea name="c" />
    </form>
  );
}
`;

describe("raw form controls", () => {
  it("are refused in a component and in a route", { timeout: 60_000 }, async () => {
    for (const file of [
      "components/records/planted.tsx",
      "app/(console)/planted/page.tsx",
      "components/ui/planted.tsx",
    ]) {
      expect(await forbidden(file, PLANTED), file).toEqual([
        "<input> is forbidden, use Input, Checkbox or FileInput from components/ui",
        "<select> is forbidden, use Select from components/ui",
        "<textarea> is forbidden, use Textarea from components/ui",
      ]);
    }
  });

  it("are allowed in the primitives that wrap them", { timeout: 60_000 }, async () => {
    expect(await forbidden("components/ui/input.tsx", PLANTED)).toEqual([]);
    expect(await forbidden("components/ui/checkbox.tsx", PLANTED)).toEqual([]);
  });

  it("appear nowhere else in components/ and app/", { timeout: 300_000 }, async () => {
    const results = await eslint.lintFiles(["components/**/*.tsx", "app/**/*.tsx"]);
    const found = results.flatMap((r) =>
      r.messages.filter((m) => m.ruleId === RULE).map((m) => `${r.filePath}:${m.line} ${m.message}`),
    );
    expect(found).toEqual([]);
  });
});
