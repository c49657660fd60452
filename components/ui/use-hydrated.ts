"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * False in the server's HTML and until React has hydrated. Buttons whose work is an onClick
 * stay disabled until then, so an early click is not silently lost (or submitted natively).
 * React's own server/client snapshot split says which side is rendering, without an effect.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribe,
    () => true,
    () => false,
  );
}
