import type { DeclaredAnnotations, EffectiveAnnotations } from "@/lib/tool-listings/annotation-types";
import { HINT_NAMES } from "@/lib/tool-listings/annotation-types";

const SHORT: Record<(typeof HINT_NAMES)[number], string> = {
  readOnlyHint: "readOnly",
  destructiveHint: "destructive",
  idempotentHint: "idempotent",
  openWorldHint: "openWorld",
};

/** Declared beside effective, per hint: a default shows in grey, "n/a" where read-only makes a hint meaningless. */
export function AnnotationCells({
  declared,
  effective,
}: {
  declared: DeclaredAnnotations | null;
  effective: EffectiveAnnotations | null;
}) {
  if (!declared || !effective) return <span className="text-xs text-slate-500">not listed</span>;
  return (
    <dl className="grid grid-cols-[auto_auto_auto] gap-x-2 text-xs" data-testid="annotations">
      {HINT_NAMES.map((hint) => {
        const value = declared[hint];
        const applied = effective[hint];
        return (
          <div key={hint} className="contents">
            <dt className="text-slate-500">{SHORT[hint]}</dt>
            <dd
              className={value === undefined ? "text-slate-500" : "font-medium text-slate-900"}
              data-hint={hint}
              data-declared={value === undefined ? "absent" : String(value)}
            >
              {value === undefined ? "—" : String(value)}
            </dd>
            <dd
              className={
                applied === null ? "text-slate-500" : value === undefined ? "text-slate-500 italic" : "text-slate-800"
              }
              title={
                applied === null
                  ? "does not apply: the tool is read-only"
                  : value === undefined
                    ? "the spec's default"
                    : "as declared"
              }
            >
              {applied === null ? "n/a" : String(applied)}
            </dd>
          </div>
        );
      })}
    </dl>
  );
}
