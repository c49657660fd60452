"use client";

import { useEffect, useState } from "react";

/**
 * False in the server's HTML and until React has hydrated. Buttons whose work is an onClick
 * stay disabled until then, so an early click is not silently lost (or submitted natively).
 */
export function useHydrated(): boolean {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}
