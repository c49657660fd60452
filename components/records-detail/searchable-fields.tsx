import { Link } from "@/components/ui/link";
import { CopyButton } from "@/components/ui/copy-button";
import type { SearchableValue } from "@/lib/records/searchable-values";

/**
 * The record's searchable response fields (a receipt, a tracking number): what a customer may quote
 * and what the lookup and the records list find it by. A masked value is never shown, nor searchable.
 */
export function SearchableFields({ fields }: { fields: SearchableValue[] }) {
  if (fields.length === 0) return null;
  return (
    <div className="col-span-2 xl:col-span-3" data-testid="searchable-fields">
      <dt className="text-xs font-medium uppercase tracking-wide text-slate-500">Searchable fields</dt>
      <dd className="mt-0.5">
        <ul className="flex flex-col gap-1">
          {fields.map((field) => (
            <li key={`${field.label}|${field.path}`} className="flex flex-wrap items-center gap-2">
              <span className="text-sm text-slate-700">
                {field.label} <span className="text-xs text-slate-500">({field.path})</span>
              </span>
              {field.value === null ? (
                <span className="italic text-slate-500">masked</span>
              ) : (
                <>
                  <Link
                    href={`/records?field=${encodeURIComponent(`${field.label}:${field.value}`)}`}
                    className="break-all font-mono text-sm text-slate-900 underline decoration-slate-300 hover:decoration-slate-900"
                    title={`every record whose ${field.label} is this value`}
                  >
                    {field.value}
                  </Link>
                  <CopyButton text={field.value} label={`Copy ${field.label}`} />
                </>
              )}
            </li>
          ))}
        </ul>
      </dd>
    </div>
  );
}
