import { afterEach } from "vitest";
import { openWatches } from "../helpers/page-errors";

// Every browser test fails when a page it opened logged a console error or threw, unless the
// test allowed that message (watchPageErrors(browser).allow) as its own intended outcome.
afterEach(() => {
  for (const watch of openWatches()) watch.expectNoPageErrors();
});
