import type { ByteWindow, CanonicalDiff } from "@/lib/records/canonical-diff";

/** Two canonical forms around their first differing byte: the bytes before it, the byte marked, its hex. */
export function CanonicalDiffTable({
  diff,
  leftName,
  rightName,
}: {
  diff: CanonicalDiff;
  leftName: string;
  rightName: string;
}) {
  return (
    // A region a keyboard can focus: on a phone the hex column is past the right edge, scrolled to.
    <div
      className="mt-1 overflow-x-auto"
      tabIndex={0}
      role="region"
      aria-label={`${leftName} and ${rightName} from their first differing byte`}
    >
      <table className="font-mono text-xs">
        <thead>
          <tr className="text-left text-slate-600">
            <th className="py-1 pr-3 font-sans font-medium">text</th>
            <th className="py-1 pr-3 text-right font-sans font-medium">… bytes before</th>
            <th className="py-1 pr-3 font-sans font-medium">from byte {diff.offset}</th>
            <th className="py-1 font-sans font-medium">hex</th>
          </tr>
        </thead>
        <tbody>
          <DiffRow name={leftName} window={diff.left} />
          <DiffRow name={rightName} window={diff.right} />
        </tbody>
      </table>
    </div>
  );
}

function DiffRow({ name, window }: { name: string; window: ByteWindow | null }) {
  if (!window) return null;
  return (
    <tr className="align-top">
      <td className="py-1 pr-3 font-sans text-slate-700">{name}</td>
      <td className="whitespace-pre py-1 pr-3 text-right text-slate-600">{window.before}</td>
      <td className="whitespace-pre py-1 pr-3">
        <mark className="bg-rose-200 text-rose-950">{window.from.slice(0, 1)}</mark>
        {window.from.slice(1)}
        {window.from === "" ? <span className="italic text-slate-600">(end)</span> : null}
      </td>
      <td className="whitespace-nowrap py-1 text-slate-700">{window.hex || "—"}</td>
    </tr>
  );
}
