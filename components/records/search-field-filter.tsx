import { FIELD_LABEL_CLASS } from "@/components/ui/form-classes";
import { FieldGroup } from "@/components/ui/field-group";
import { Input } from "@/components/ui/input";
import { refusedFieldProps } from "@/components/ui/query-problems";
import { Select } from "@/components/ui/select";
import type { SearchField } from "@/lib/records/records-search-params";

type Props = {
  /** The URL's field filter. */
  value: SearchField | null;
  /** The labels idem.config.json names (tools.<tool>.search); none: the control is not shown. */
  labels: string[];
  /** Beside a refusal: each refused parameter's reason id (components/ui/query-problems). */
  problemIds?: Partial<Record<string, string>>;
};

/**
 * A searchable response field (a receipt, a tracking number) and the exact value support was
 * given, submitted with the form as `field=<label>:<value>`. Keyed on the URL value so the back
 * button resets what is typed here.
 */
export function SearchFieldFilter({ value, labels, problemIds = {} }: Props) {
  if (labels.length === 0) return null;
  const options = [...new Set([...labels, ...(value ? [value.label] : [])])];
  return (
    <FieldGroup legend="Response field (exact)" className="max-w-full" data-testid="search-field-filter">
      <Select
        key={`label-${value?.label ?? ""}`}
        name="fieldLabel"
        aria-label="Searchable field"
        defaultValue={value?.label ?? options[0]}
      >
        {options.map((label) => (
          <option key={label} value={label}>
            {label}
          </option>
        ))}
      </Select>
      <label className={`${FIELD_LABEL_CLASS} sr-only`} htmlFor="records-field-value">
        Value
      </label>
      <Input
        id="records-field-value"
        key={`value-${value?.value ?? ""}`}
        name="fieldValue"
        defaultValue={value?.value ?? ""}
        placeholder="e.g. ch_3Mq2x…"
        maxLength={200}
        autoComplete="off"
        spellCheck={false}
        aria-label="Value of the searchable field"
        {...refusedFieldProps(problemIds, "field", "w-44 max-w-full font-mono")}
      />
    </FieldGroup>
  );
}
