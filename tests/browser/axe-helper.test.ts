import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seriousViolations } from "../helpers/axe";
import { browserMissing, launchChromium } from "../helpers/browser";

// The audit helper every page test uses runs axe in the page when it has no frames: what it finds must be what
// the partial run finds, on the page and inside a frame.
const PLANTED = `<img src="data:image/png;base64,iVBORw0KGgo="><button></button>
  <p style="color:#aaa;background:#fff">low contrast</p><input type="text"><a href="#"></a>`;

describe.skipIf(browserMissing)("the axe helper", () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchChromium();
    page = await (await browser.newContext()).newPage(); // the partial run opens a page of its own in the context
  });
  afterAll(async () => {
    await browser?.close();
  });

  const show = async (body: string) => {
    await page.setContent(`<!doctype html><html lang="en"><head><title>planted</title></head><body><main>
      <h1>Planted</h1>${body}</main></body></html>`);
    await page.waitForLoadState("load");
  };
  const rules = (violations: string[]) => violations.map((v) => v.replace(/:.*/, ""));

  it("finds each planted violation on a page without frames", async () => {
    await show(PLANTED);
    expect(page.frames()).toHaveLength(1);
    expect(rules(await seriousViolations(page))).toEqual([
      "button-name",
      "color-contrast",
      "image-alt",
      "label",
      "link-name",
    ]);
  });

  it("reaches into a frame's document", async () => {
    await show(
      `<iframe title="inner" srcdoc='<html lang="en"><body><img src="x"><button></button></body></html>'></iframe>`,
    );
    await expect.poll(() => page.frames().length).toBe(2);
    expect(await seriousViolations(page)).toEqual(["button-name: iframe button", "image-alt: iframe img"]);
  });
});
