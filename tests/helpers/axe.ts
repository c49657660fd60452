import AxeBuilder from "@axe-core/playwright";
import type { Page } from "playwright-core";

type AxeViolation = Awaited<ReturnType<AxeBuilder["analyze"]>>["violations"][number];

/**
 * axe-core's violations on `page` (or within `include`, a CSS selector). Every rule still runs on
 * every node; `resultTypes` only spares axe building a selector and an HTML excerpt for each node that
 * passed (about 4,000 on the records page), a quarter of Chromium's time and half of ours per audit.
 */
export async function axeViolations(page: Page, include?: string): Promise<AxeViolation[]> {
  let builder = new AxeBuilder({ page })
    .options({ resultTypes: ["violations"] })
    // A page without frames is audited by axe.run in the page itself: the same rules on the same nodes, without
    // the partial run's blank page (a third of Chromium's time per audit, docs/test-time.md "Stop 54").
    // A page with frames takes the partial run, the one that reaches into them.
    .setLegacyMode(page.frames().length === 1);
  if (include) builder = builder.include(include);
  return (await builder.analyze()).violations;
}

/** The serious and critical violations, each as "rule: the nodes' selectors", for an `toEqual([])`. */
export async function seriousViolations(page: Page, include?: string): Promise<string[]> {
  return (await axeViolations(page, include))
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
}
