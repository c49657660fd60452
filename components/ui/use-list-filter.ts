"use client";

import { useQueryStates, type Nullable, type UseQueryStatesKeysMap, type Values } from "nuqs";
import { useTransition } from "react";

/**
 * A list's filter in the URL through its nuqs parsers: each change pushes a history entry and
 * renders the server page again (shallow: false), starting at the first page (no cursor). Beside
 * a refusal, `refused` names the parameters the page could not read: every change drops them too,
 * so correcting the filter in place leaves no refused value behind in the URL.
 */
export function useListFilter<K extends UseQueryStatesKeysMap>(parsers: K, refused: readonly string[] = []) {
  const [pending, startTransition] = useTransition();
  const [params, setParams] = useQueryStates(parsers, { shallow: false, history: "push", startTransition });
  function apply(change: Partial<Nullable<Values<K>>>) {
    const dropped = Object.fromEntries(refused.filter((name) => name in parsers).map((name) => [name, null]));
    void setParams({ ...dropped, ...change, cursor: null, dir: null } as Partial<Nullable<Values<K>>>);
  }
  return { params, pending, apply };
}
