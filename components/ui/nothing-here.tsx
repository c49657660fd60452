import { Link } from "@/components/ui/link";

/** The not-found card: the same words for a page that does not exist and for one that is not the reader's. */
export function NothingHere() {
  return (
    <div className="max-w-md rounded-lg border border-slate-200 bg-white p-6 text-center">
      <h1 className="text-lg font-semibold">Nothing here</h1>
      <p className="mt-2 text-sm text-slate-600">This page does not exist, or it is not yours to see.</p>
      <Link href="/" className="mt-4 inline-block text-sm underline">
        Back to the overview
      </Link>
    </div>
  );
}
