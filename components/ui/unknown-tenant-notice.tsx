import { Link } from "@/components/ui/link";
import { buttonClass } from "@/components/ui/button";

type Params = Record<string, string | string[] | undefined>;

type Props = {
  /** The one wording (lib/records/tenant-filter): the same for a tenant outside yours and one that does not exist. */
  message: string;
  /** What was not done because of it; defaults to the pages' "nothing was counted". */
  detail?: string;
  /** The page and its URL parameters, to offer the same view without the tenant (or with one of the caller's). */
  link?: { path: string; params: Params; tenants: string[] };
};

/** Position in a list that the tenant changes: a cursor of one tenant's list means nothing in another's. */
const DROPPED = new Set(["tenant", "cursor", "dir"]);

function hrefWith(path: string, params: Params, tenant: string | null): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (DROPPED.has(name) || value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) query.append(name, one);
  }
  if (tenant !== null) query.set("tenant", tenant);
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}

/**
 * A page whose URL names a tenant the caller cannot be answered about: say so in the page, in
 * place of figures — zeros or an empty list here would read as facts about a real tenant.
 */
export function UnknownTenantNotice({ message, detail = "Nothing was counted or listed for it.", link }: Props) {
  return (
    <div
      role="alert"
      data-testid="unknown-tenant"
      className="max-w-2xl rounded-lg border border-amber-300 bg-amber-50 p-5"
    >
      <p className="text-sm font-semibold text-amber-900" data-testid="unknown-tenant-message">
        {message}
      </p>
      <p className="mt-1 text-sm text-amber-900">{detail}</p>
      {link ? (
        <div className="mt-4 flex flex-wrap items-center gap-2">
          <Link
            href={hrefWith(link.path, link.params, null)}
            className="rounded-md bg-slate-900 px-3 py-1.5 text-sm text-white hover:bg-slate-700"
          >
            {link.tenants.length > 0 ? "Show all my tenants" : "Show every tenant"}
          </Link>
          {link.tenants.map((tenant) => (
            <Link
              key={tenant}
              href={hrefWith(link.path, link.params, tenant)}
              className={buttonClass({ variant: "secondary", className: "font-normal" })}
            >
              {tenant}
            </Link>
          ))}
        </div>
      ) : null}
    </div>
  );
}
