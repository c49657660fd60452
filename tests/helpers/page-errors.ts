import type { Browser, BrowserContext, Page } from "playwright-core";

/**
 * Collects what the pages of a browser log as console errors or throw, so a test fails on a page
 * that broke quietly (a React error, a failed hydration, a script exception) even when its
 * assertions passed. Every context and page the browser opens is watched: `browser.newContext`
 * and `browser.newPage` are wrapped on this one Browser object.
 */
export type PageErrorWatch = {
  /** Tolerates messages matching `pattern` until the next `expectNoPageErrors()`: the test's own intended outcome. */
  allow(pattern: RegExp): void;
  /** Throws naming every unexpected message since the last call, then starts afresh. */
  expectNoPageErrors(): void;
};

const watches = new WeakMap<Browser, PageErrorWatch>();
const liveWatches = new Set<PageErrorWatch>();

/** The watches of every browser still open, which tests/setup/page-error-guard.ts checks after each test. */
export function openWatches(): Iterable<PageErrorWatch> {
  return liveWatches;
}

/**
 * The browser's watch. `launchChromium` starts one on every browser, so every browser test is
 * guarded; a test calls this to `allow` the errors it provokes. Watching twice returns the same watch.
 */
export function watchPageErrors(browser: Browser): PageErrorWatch {
  const existing = watches.get(browser);
  if (existing) return existing;
  const watch = startWatching(browser);
  watches.set(browser, watch);
  liveWatches.add(watch);
  browser.on("disconnected", () => liveWatches.delete(watch));
  return watch;
}

function startWatching(browser: Browser): PageErrorWatch {
  let messages: string[] = [];
  let allowed: RegExp[] = [];
  const watchedPages = new WeakSet<Page>();
  const watchedContexts = new WeakSet<BrowserContext>();

  const watchPage = (page: Page) => {
    if (watchedPages.has(page)) return;
    watchedPages.add(page);
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      const where = message.location().url;
      messages.push(`console.error on ${page.url()}: ${message.text()}${where ? ` (${where})` : ""}`);
    });
    page.on("pageerror", (error) => messages.push(`uncaught on ${page.url()}: ${error.stack ?? error.message}`));
  };
  const watchContext = (context: BrowserContext) => {
    if (watchedContexts.has(context)) return;
    watchedContexts.add(context);
    context.pages().forEach(watchPage);
    context.on("page", watchPage);
  };

  const newContext = browser.newContext.bind(browser);
  const newPage = browser.newPage.bind(browser);
  browser.newContext = async (...args) => {
    const context = await newContext(...args);
    watchContext(context);
    return context;
  };
  browser.newPage = async (...args) => {
    const page = await newPage(...args);
    watchContext(page.context());
    watchPage(page);
    return page;
  };

  return {
    allow(pattern) {
      allowed.push(pattern);
    },
    expectNoPageErrors() {
      const unexpected = messages.filter((m) => !allowed.some((pattern) => pattern.test(m)));
      messages = [];
      allowed = [];
      if (unexpected.length > 0)
        throw new Error(`The page logged ${unexpected.length} error(s):\n${unexpected.join("\n")}`);
    },
  };
}
