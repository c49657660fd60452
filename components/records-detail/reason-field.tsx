import { Field } from "@/components/ui/field";
import { Textarea } from "@/components/ui/textarea";

/** The required reason of an audited change of a record (resolve, allow a repeat): one look, one rule. */
export function ReasonField({
  value,
  onChange,
  placeholder,
}: {
  value: string;
  onChange: (value: string) => void;
  placeholder: string;
}) {
  return (
    <Field label="Reason (required; kept in the audit log)">
      <Textarea
        name="reason"
        rows={2}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
        className="bg-transparent font-normal text-slate-900"
      />
    </Field>
  );
}
