"use client";

import Link from "next/link";
import { useMemo, useState } from "react";
import { formatDuration } from "@/lib/config/duration";
import type { RecordListItem } from "@/lib/records/list-records";
import { BulkPlanPanel, type BulkPlanRequest } from "@/components/bulk/bulk-plan-panel";
import { CopyRefButton } from "@/components/records/copy-ref-button";
import { RecordTime } from "@/components/records/record-time";
import { Button } from "@/components/ui/button";

type Props = {
  claims: RecordListItem[];
  now: string;
  /** Operators and admins plan and apply; viewers see the list only. */
  canPlan: boolean;
  filter: { tenant: string | null; tool: string | null };
  /** Stuck claims matching the filter, on every page. */
  total: number;
};

/** The stuck claims of this page, with checkboxes, and the way into a bulk plan. */
export function StuckClaimsTable({ claims, now, canPlan, filter, total }: Props) {
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [request, setRequest] = useState<BulkPlanRequest | null>(null);
  const visible = useMemo(() => new Set(claims.map((c) => c.key)), [claims]);
  // After a refresh resolved rows disappear: a selection only counts rows still shown.
  const chosen = [...selected].filter((key) => visible.has(key));
  const allChecked = claims.length > 0 && chosen.length === claims.length;

  function toggle(key: string, on: boolean) {
    setSelected((current) => {
      const next = new Set(current);
      if (on) next.add(key);
      else next.delete(key);
      return next;
    });
  }

  return (
    <>
      {canPlan ? (
        <div className="mb-3 flex flex-wrap items-center gap-2">
          <Button variant="primary" size="md"
            disabled={chosen.length === 0}
            onClick={() => setRequest({ keys: chosen })}
            data-testid="plan-selected"
          >
            Plan for selected ({chosen.length})
          </Button>
          <Button variant="secondary" size="md"
            disabled={total === 0}
            onClick={() => setRequest({ filter: { ...filter } })}
            data-testid="plan-all"
          >
            Plan for all matching ({total.toLocaleString("en")}{total > 500 ? ", oldest 500" : ""})
          </Button>
          <span className="text-xs text-slate-500">A plan is a dry run: it asks each processor and proposes; nothing changes until you apply it.</span>
        </div>
      ) : null}

      <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
        <table className="min-w-full text-sm" data-testid="stuck-table">
          <thead className="border-b border-slate-200 bg-slate-50 text-left text-xs font-medium uppercase tracking-wide text-slate-500">
            <tr>
              {canPlan ? (
                <th scope="col" className="w-8 px-3 py-2">
                  <input
                    type="checkbox"
                    aria-label="Select every claim on this page"
                    className="h-4 w-4"
                    checked={allChecked}
                    onChange={(e) => setSelected(e.target.checked ? new Set(claims.map((c) => c.key)) : new Set())}
                  />
                </th>
              ) : null}
              <th scope="col" className="px-3 py-2">Ref</th>
              <th scope="col" className="px-3 py-2">Tenant</th>
              <th scope="col" className="px-3 py-2">Subject</th>
              <th scope="col" className="px-3 py-2">Tool</th>
              <th scope="col" className="px-3 py-2">Age</th>
              <th scope="col" className="px-3 py-2">Threshold</th>
            </tr>
          </thead>
          <tbody>
            {claims.map((claim) => (
              <tr key={claim.key} data-key={claim.key} className="border-b border-slate-100 bg-red-50/40 last:border-0 hover:bg-red-50">
                {canPlan ? (
                  <td className="px-3 py-2">
                    <input type="checkbox" aria-label={`Select ${claim.ref}`} className="h-4 w-4" checked={selected.has(claim.key)} onChange={(e) => toggle(claim.key, e.target.checked)} />
                  </td>
                ) : null}
                <td className="px-3 py-2">
                  <span className="inline-flex items-center gap-1">
                    <Link href={`/records/${claim.key}`} className="font-mono text-xs underline-offset-2 hover:underline" title={claim.key}>
                      {claim.ref}
                    </Link>
                    <CopyRefButton text={claim.ref} />
                  </span>
                </td>
                <td className="px-3 py-2">{claim.tenant}</td>
                <td className="px-3 py-2">{claim.subject ?? <span className="italic text-slate-500">unrecorded</span>}</td>
                <td className="px-3 py-2 font-mono text-xs">{claim.tool ?? <span className="font-sans italic text-slate-500">unrecorded</span>}</td>
                <td className="px-3 py-2 font-medium text-red-800">
                  <RecordTime at={claim.createdAt} now={now} suffix="" />
                </td>
                <td className="px-3 py-2 text-xs text-slate-500">{formatDuration(claim.stuckAfterMs)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>

      {request ? <BulkPlanPanel key={JSON.stringify(request)} request={request} onClose={() => setRequest(null)} /> : null}
    </>
  );
}
