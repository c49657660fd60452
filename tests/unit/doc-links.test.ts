import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

// The README sends a newcomer to docs/ for everything it no longer says itself: a link that names a
// moved or renamed file, or a heading that is gone, leaves them at a dead end. Checked here, not by eye.

const ROOT = path.resolve(".");
const PAGES = ["README.md", "CONTRIBUTING.md", "SECURITY.md", ...markdownIn("docs")];

function markdownIn(folder: string): string[] {
  return readdirSync(path.join(ROOT, folder))
    .filter((name) => name.endsWith(".md"))
    .map((name) => `${folder}/${name}`);
}

/** The page's prose: fenced and indented code blocks and inline code hold examples, not links. */
function prose(markdown: string): string {
  const lines: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    else if (!fenced && !/^( {4}|\t)/.test(line)) lines.push(line.replace(/`[^`\n]*`/g, ""));
  }
  return lines.join("\n");
}

/** Relative link targets, `[text](target)` and `![alt](target)`; web addresses are not checked here. */
function relativeLinks(markdown: string): string[] {
  const targets = [...prose(markdown).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((m) => m[1] ?? "");
  return targets.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** GitHub's anchor for a heading: its text, lower-cased, punctuation dropped, spaces as hyphens. */
function headingAnchor(heading: string): string {
  const text = heading
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase();
  return text.replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s/g, "-");
}

/** Every anchor a Markdown page offers: its headings (repeats numbered as GitHub does) and `<a id>`s. */
function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const heading = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (heading?.[1]) {
      const base = headingAnchor(heading[1]);
      const count = seen.get(base) ?? 0;
      seen.set(base, count + 1);
      anchors.add(count === 0 ? base : `${base}-${count}`);
    }
    for (const m of line.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) if (m[1]) anchors.add(m[1]);
  }
  return anchors;
}

/** What is wrong with one link of a page, or null: the file must exist, and a Markdown anchor must be a heading. */
function linkProblem(page: string, target: string, root = ROOT): string | null {
  const [file = "", anchor] = target.split("#", 2);
  const resolved = file === "" ? path.join(root, page) : path.resolve(root, path.dirname(page), decodeURI(file));
  if (resolved !== root && !resolved.startsWith(root + path.sep)) return `${target}: points outside the repository`;
  if (!existsSync(resolved)) return `${target}: no file ${path.relative(root, resolved)}`;
  if (anchor === undefined || anchor === "" || !resolved.endsWith(".md") || statSync(resolved).isDirectory())
    return null;
  if (anchorsOf(readFileSync(resolved, "utf8")).has(decodeURIComponent(anchor))) return null;
  return `${target}: ${path.relative(root, resolved)} has no heading #${anchor}`;
}

describe("documentation links", () => {
  it.each(PAGES)("every relative link in %s names a file (and heading) that exists", (page) => {
    const markdown = readFileSync(path.join(ROOT, page), "utf8");
    const problems = relativeLinks(markdown)
      .map((target) => linkProblem(page, target))
      .filter((problem) => problem !== null);
    expect(problems).toEqual([]);
  });

  it("finds links at all: the README links the docs it moved its reference to", () => {
    const links = relativeLinks(readFileSync(path.join(ROOT, "README.md"), "utf8"));
    for (const page of ["docs/configuration.md", "docs/api.md", "docs/cli.md", "docs/operations.md", "CONTRIBUTING.md"])
      expect(links).toContain(page);
  });

  it("names a missing file, a missing heading and a link outside the repository", () => {
    expect(linkProblem("docs/cli.md", "configuration.md")).toBeNull();
    expect(linkProblem("docs/cli.md", "no-such-page.md")).toBe("no-such-page.md: no file docs/no-such-page.md");
    expect(linkProblem("README.md", "docs/api.md#no-such-heading")).toBe(
      "docs/api.md#no-such-heading: docs/api.md has no heading #no-such-heading",
    );
    expect(linkProblem("README.md", "../outside.md")).toBe("../outside.md: points outside the repository");
  });

  it("reads links out of prose only, and anchors as GitHub writes them", () => {
    const page =
      'See [a](a.md), ![b](b.png "title"), [web](https://example.com), `[code](c.md)`.\n\n    [indented](d.md)\n';
    expect(relativeLinks(page)).toEqual(["a.md", "b.png"]);
    expect(headingAnchor("`idem.config.json`")).toBe("idemconfigjson");
    expect(headingAnchor('On the Tools page: "verified", "refuted" and "stale"')).toBe(
      "on-the-tools-page-verified-refuted-and-stale",
    );
    expect([...anchorsOf("# Notes\n## Notes\n```\n# not a heading\n```\n")]).toEqual(["notes", "notes-1"]);
  });
});
