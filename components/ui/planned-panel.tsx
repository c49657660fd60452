/** A page whose content a later piece of work fills: says plainly what it will show. */
export function PlannedPanel({ items }: { items: string[] }) {
  return (
    <section className="rounded-lg border border-dashed border-slate-300 bg-white p-5">
      <h2 className="text-sm font-medium text-slate-700">What this page will show</h2>
      <ul className="mt-2 list-disc space-y-1 pl-5 text-sm text-slate-600">
        {items.map((item) => (
          <li key={item}>{item}</li>
        ))}
      </ul>
    </section>
  );
}
