import type { Page } from "playwright-core";

/**
 * Visible text fields and drop-downs too small for their words: less height than a line of their
 * text inside their padding, or an empty field's placeholder wider than its room (a cut example
 * date reads as a wrong one); with `values`, a filled field's value too (a filter the page filled
 * in). Each entry names the control and what it lacks.
 */
export function controlsShortOfTheirWords(page: Page, options: { values?: boolean } = {}): Promise<string[]> {
  return page.evaluate((checkValues) => {
    const measure = document.createElement("canvas").getContext("2d")!;
    const short: string[] = [];
    for (const control of document.querySelectorAll<HTMLInputElement | HTMLSelectElement>(
      "input:not([type=checkbox]):not([type=hidden]), select",
    )) {
      if (!control.checkVisibility()) continue;
      const name = control.getAttribute("name") ?? control.id;
      const style = getComputedStyle(control);
      const room = control.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
      if (room < parseFloat(style.fontSize) * 1.15) short.push(`${name}: ${room} px for its text`);
      if (control instanceof HTMLInputElement && control.placeholder && control.value === "") {
        measure.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const width = control.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        const needed = Math.ceil(measure.measureText(control.placeholder).width);
        if (needed > width) short.push(`${name}: placeholder ${needed} px in ${width} px`);
      }
      // A value as rendered: the field scrolls when it is wider (a canvas cannot resolve ui-monospace, and measured short).
      if (checkValues && control instanceof HTMLInputElement && control.scrollWidth > control.clientWidth)
        short.push(`${name}: value ${control.scrollWidth} px in ${control.clientWidth} px`);
    }
    return short;
  }, options.values ?? false);
}
