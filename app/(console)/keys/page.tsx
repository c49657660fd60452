import { ExplainForm, type ExplainFormValues } from "@/components/keys/explain-form";
import { ActionResult } from "@/components/ui/action-result";
import { KeyExplanationView } from "@/components/keys/key-explanation";
import { PageHeader } from "@/components/ui/page-header";
import { requirePageActor } from "@/lib/auth/session-actor";
import { explainKeyForPage } from "@/lib/pages/console-page-data";
import { parseExplainParams, type FieldError } from "@/lib/records/explain-key";

export const metadata = { title: "Keys" };
export const dynamic = "force-dynamic";

const FIELDS = ["tenant", "subject", "tool", "args", "at", "window", "scheme", "compare"] as const;

type Props = { searchParams: Promise<Record<string, string | string[] | undefined>> };

export default async function KeysPage({ searchParams }: Props) {
  const actor = await requirePageActor("keys:explain", "/keys");
  const params = await searchParams;
  const values: ExplainFormValues = {};
  for (const field of FIELDS) {
    const value = params[field];
    const first = Array.isArray(value) ? value[0] : value;
    if (first !== undefined) values[field] = first;
  }
  // Only a submitted form is explained: a link that pre-fills tenant and tool shows the form, not errors.
  let errors: FieldError[] = [];
  let explanation = null;
  if (values.args !== undefined) {
    const parsed = parseExplainParams(values, new Date());
    if (!parsed.ok) errors = parsed.errors;
    else {
      const result = await explainKeyForPage(actor, parsed.input);
      if (result.ok) explanation = result.explanation;
      else errors = result.errors;
    }
  }
  const errorByField = Object.fromEntries(errors.map((e) => [e.field, e.message]));
  return (
    <>
      <PageHeader
        title="Keys"
        description="How a key is derived: sha256(tenant|subject|tool|canonical arguments|time bucket), and which records the same call left in the neighbouring buckets."
      />
      <div className="space-y-6">
        <ExplainForm values={values} errors={errorByField} />
        {/* The explanation answers a submitted form: it takes focus, as an in-page answer would. */}
        <ActionResult resultKey={explanation ? explanation.derived.key : null} label="key explanation">
          {explanation ? <KeyExplanationView explanation={explanation} /> : null}
        </ActionResult>
      </div>
    </>
  );
}
