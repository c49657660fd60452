"use client";

import { useQueryStates } from "nuqs";
import { useTransition } from "react";
import { PAGE_SIZES, recordsSearchParams, type PageSize } from "@/lib/records/records-search-params";

/** Rows per page; a new size starts again at the newest record. */
export function PageSizeSelect() {
  const [, startTransition] = useTransition();
  const [{ limit }, setParams] = useQueryStates(recordsSearchParams, {
    shallow: false,
    history: "push",
    startTransition,
  });
  return (
    <label className="flex items-center gap-1.5 text-xs text-slate-600">
      Per page
      <select
        name="limit"
        value={limit}
        onChange={(e) => void setParams({ limit: Number(e.target.value) as PageSize, cursor: null, dir: null })}
        className="rounded-md border border-slate-300 bg-white px-1.5 py-1 text-sm"
      >
        {PAGE_SIZES.map((size) => (
          <option key={size} value={size}>
            {size}
          </option>
        ))}
      </select>
    </label>
  );
}
