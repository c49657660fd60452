const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Why PostgreSQL cannot store this text as sent, or null: `text` and `jsonb` refuse NUL
 * characters, and a lone UTF-16 surrogate is not Unicode at all (jsonb refuses its escape,
 * `text` would silently turn it into U+FFFD).
 */
export function unstorableTextReason(text: string): string | null {
  if (text.includes("\u0000")) return "contains a NUL character";
  if (LONE_SURROGATE.test(text)) return "contains a lone UTF-16 surrogate (not valid Unicode)";
  return null;
}

/** Deeper than any body the console expects; walking it further is only work for an attacker. */
const MAX_DEPTH = 64;

/**
 * The first string (or object key) in a parsed JSON value that cannot be stored, with its
 * path; or a body nested deeper than MAX_DEPTH. Iterative: a 5,000-deep array is no stack overflow.
 */
export function findUnstorableText(
  root: unknown,
  rootPath: (string | number)[] = [],
): { field: string; message: string } | null {
  const stack: { value: unknown; path: (string | number)[] }[] = [{ value: root, path: rootPath }];
  while (stack.length > 0) {
    const { value, path } = stack.pop()!;
    const field = path.join(".") || "(body)";
    if (typeof value === "string") {
      const reason = unstorableTextReason(value);
      if (reason) return { field, message: reason };
    } else if (typeof value === "object" && value !== null) {
      if (path.length - rootPath.length >= MAX_DEPTH)
        return { field, message: `is nested more than ${MAX_DEPTH} levels deep` };
      const entries: [string | number, unknown][] = Array.isArray(value) ? [...value.entries()] : Object.entries(value);
      for (const [key, item] of entries.reverse()) {
        const keyReason = typeof key === "string" ? unstorableTextReason(key) : null;
        if (keyReason) return { field: [...path, key].join("."), message: `has a field name that ${keyReason}` };
        stack.push({ value: item, path: [...path, key] });
      }
    }
  }
  return null;
}
