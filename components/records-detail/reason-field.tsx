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
    <label className="flex flex-col gap-0.5 text-xs font-medium text-slate-600">
      Reason (required; kept in the audit log)
      <textarea
        name="reason"
        rows={2}
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder={placeholder}
        className="rounded-md border border-slate-300 px-2 py-1 text-sm font-normal text-slate-900"
      />
    </label>
  );
}
