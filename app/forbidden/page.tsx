import { Link } from "@/components/ui/link";

export const metadata = { title: "Not allowed" };

export default async function ForbiddenPage({ searchParams }: { searchParams: Promise<{ action?: string }> }) {
  const { action } = await searchParams;
  return (
    <main className="flex min-h-screen items-center justify-center px-4">
      <div className="max-w-md rounded-lg border border-slate-200 bg-white p-6 text-center">
        <h1 className="text-lg font-semibold">Your role may not do this</h1>
        <p className="mt-2 text-sm text-slate-600">
          {typeof action === "string" ? (
            <>
              The action <code className="font-mono">{action.slice(0, 60)}</code> needs a higher role.{" "}
            </>
          ) : null}
          Ask an admin if you need it.
        </p>
        <Link href="/" className="mt-4 inline-block text-sm text-slate-900 underline">
          Back to the overview
        </Link>
      </div>
    </main>
  );
}
