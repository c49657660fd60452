import { Link } from "@/components/ui/link";
import { Card } from "@/components/ui/card";

/** Says which filter matched nothing, and the way out. */
export function RecordsEmptyState({
  filterWords,
  pastEnd,
  firstPage,
}: {
  filterWords: string;
  pastEnd: boolean;
  firstPage: string;
}) {
  return (
    <Card className="p-8 text-center" data-testid="records-empty">
      <p className="text-sm font-medium text-slate-800">
        {pastEnd
          ? "No more records on this side of the page you came from."
          : filterWords
            ? `No records match ${filterWords}.`
            : "The idempotency table has no records you can see yet."}
      </p>
      <p className="mt-1 text-sm text-slate-500">
        {pastEnd ? (
          <Link href={`/records${firstPage}`} className="underline">
            Back to the newest records
          </Link>
        ) : filterWords ? (
          <Link href="/records" className="underline">
            Clear all filters
          </Link>
        ) : (
          "Writers add a row before every side effect; rows appear here as they do."
        )}
      </p>
    </Card>
  );
}
