import type { Page } from "playwright-core";

/** The focused element as the test sees it: what it is, and whether its focus indicator can be seen. */
export type FocusedElement = {
  /** tag#id.class [name] "text": enough to find it in a failure message. */
  describe: string;
  tag: string;
  text: string;
  href: string | null;
  /** The best contrast of its outline or box-shadow colour against what lies behind it (0 without either). */
  ringContrast: number;
  /** What drew the indicator: "outline", "box-shadow" or "none". */
  ringBy: "outline" | "box-shadow" | "none";
  /** Its box lies in the viewport with a non-zero size (a skip link that stays off-screen is not). */
  visible: boolean;
};

/** document.activeElement, described; null when focus is on <body> or nowhere. */
export function focusedElement(page: Page): Promise<FocusedElement | null> {
  return page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body || el === document.documentElement) return null;
    const context = document.createElement("canvas").getContext("2d");
    // Any CSS colour (oklch from Tailwind 4 included) through the canvas, as [r, g, b, alpha].
    const rgba = (color: string): [number, number, number, number] => {
      if (!context) return [0, 0, 0, 0];
      context.clearRect(0, 0, 1, 1);
      context.fillStyle = "rgba(0, 0, 0, 0)";
      context.fillStyle = color;
      context.fillRect(0, 0, 1, 1);
      const d = context.getImageData(0, 0, 1, 1).data;
      return [d[0] ?? 0, d[1] ?? 0, d[2] ?? 0, (d[3] ?? 0) / 255];
    };
    const luminance = ([r = 0, g = 0, b = 0]: number[]) => {
      const channel = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
    };
    const contrast = (a: number[], b: number[]) => {
      const [la, lb] = [luminance(a), luminance(b)];
      return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
    };
    // What lies behind an outline drawn around the element: the first opaque background of its parents.
    let background: number[] = [255, 255, 255];
    for (let p = el.parentElement; p; p = p.parentElement) {
      const color = rgba(getComputedStyle(p).backgroundColor);
      if ((color[3] ?? 0) > 0.5) {
        background = color;
        break;
      }
    }
    const style = getComputedStyle(el);
    let ringContrast = 0;
    let ringBy: "outline" | "box-shadow" | "none" = "none";
    if (style.outlineStyle !== "none" && parseFloat(style.outlineWidth) >= 1) {
      const color = rgba(style.outlineColor);
      if (color[3] >= 0.5) [ringContrast, ringBy] = [contrast(color, background), "outline"];
    }
    if (style.boxShadow && style.boxShadow !== "none") {
      const colors =
        style.boxShadow.match(/(?:rgba?|oklch|oklab|lab|lch|hsla?|color)\([^)]*\)|#[0-9a-fA-F]{3,8}/g) ?? [];
      for (const c of colors) {
        const color = rgba(c);
        if (color[3] < 0.5) continue;
        const value = contrast(color, background);
        if (value > ringContrast) [ringContrast, ringBy] = [value, "box-shadow"];
      }
    }
    const box = el.getBoundingClientRect();
    const visible =
      box.width > 0 &&
      box.height > 0 &&
      box.bottom > 0 &&
      box.right > 0 &&
      box.top < innerHeight &&
      box.left < innerWidth;
    const text = (el.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 40);
    const name = el.getAttribute("name") ?? el.getAttribute("aria-label") ?? "";
    const classes = typeof el.className === "string" ? el.className.split(" ").slice(0, 2).join(".") : "";
    return {
      describe: `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}${classes ? `.${classes}` : ""}${name ? ` [${name}]` : ""}${text ? ` "${text}"` : ""}`,
      tag: el.tagName.toLowerCase(),
      text,
      href: el.getAttribute("href"),
      ringContrast: Math.round(ringContrast * 100) / 100,
      ringBy,
      visible,
    };
  });
}

/** Presses Tab until `wanted` holds for the focused element, at most `max` times; throws naming what was passed. */
export async function tabUntil(
  page: Page,
  wanted: (focused: FocusedElement) => boolean,
  what: string,
  max = 120,
  key = "Tab",
): Promise<FocusedElement> {
  const passed: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press(key);
    const focused = await focusedElement(page);
    if (focused && wanted(focused)) return focused;
    passed.push(focused?.describe ?? "<body>");
  }
  throw new Error(`${max} presses of ${key} never reached ${what}; passed:\n  ${passed.join("\n  ")}`);
}

/** Whether the focused element is inside (or is) an element `selector` finds. */
export function focusIsWithin(page: Page, selector: string): Promise<boolean> {
  // Any match: a page may hold several regions of one kind (the record page has three live regions).
  return page.evaluate((s) => {
    const focused = document.activeElement;
    return focused !== null && [...document.querySelectorAll(s)].some((target) => target.contains(focused));
  }, selector);
}
