"use client";

import { useQueryStates } from "nuqs";
import { useTransition } from "react";
import { Select } from "@/components/ui/select";
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
      <Select
        name="limit"
        value={limit}
        onChange={(e) => void setParams({ limit: Number(e.target.value) as PageSize, cursor: null, dir: null })}
        className="px-1.5"
      >
        {PAGE_SIZES.map((size) => (
          <option key={size} value={size}>
            {size}
          </option>
        ))}
      </Select>
    </label>
  );
}
