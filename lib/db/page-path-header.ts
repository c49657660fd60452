/** Set by proxy.ts on page GETs only (and stripped from every other request): where the reader was going. */
export const PAGE_PATH_HEADER = "x-idem-page-path";
