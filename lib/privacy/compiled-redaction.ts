import { JSONPath } from "jsonpath-plus";
import { maskScalar, REDACTED, redactJson, type Redaction } from "@/lib/privacy/redact";

/** One step of a path: a field name, or any child (`*`); `descend` when `..` came before it. */
type Step = { name: string | null; descend: boolean };
/** Where one path stands at a node: the step its next child must match. */
type State = { steps: readonly Step[]; at: number };

// Names JSONPath compares as plain own keys of an object. Others have rules of their own (an index
// also matches a string's characters, `length` an array's length, slices, unions): those paths stay on JSONPath.
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/**
 * `redactJson(value, redaction).value`, for many documents under one redaction: the paths are
 * parsed once and every document is masked in one walk that copies as it goes, where redactJson
 * clones, then runs JSONPath once per path, then walks again for the value masks. An export masks
 * 100,000 responses; the walk was a third of its CPU time (docs/bench.md, "Exports under load").
 * A path outside the compiled forms (`$.a.b`, `$..a`, `*`) makes the whole redaction fall back to redactJson.
 */
export function compileRedaction(redaction: Redaction): (value: unknown) => unknown {
  const compiled = redaction.paths.map(compilePath);
  if (compiled.some((steps) => steps === null)) return (value) => redactJson(value, redaction).value;
  const roots: State[] = (compiled as Step[][]).filter((steps) => steps.length > 0).map((steps) => ({ steps, at: 0 }));
  const values = redaction.values;
  const masksValues = values.email || values.cardNumbers;
  if (roots.length === 0 && !masksValues) return (value) => value;

  function copy(node: object, states: readonly State[]): unknown {
    const source = node as Record<string, unknown>;
    const out: Record<string, unknown> | unknown[] = Array.isArray(node) ? [] : {};
    // Paths that go on looking below whatever child comes next (`..`): the same for every child.
    const descending = states.filter((s) => s.steps[s.at]!.descend);
    for (const key of Object.keys(source)) {
      const child = source[key];
      let matched = false;
      let next: State[] | null = null;
      for (const state of states) {
        const step = state.steps[state.at]!;
        if (step.name !== null && step.name !== key) continue;
        if (state.at + 1 === state.steps.length) {
          matched = true;
          break;
        }
        (next ??= [...descending]).push({ steps: state.steps, at: state.at + 1 });
      }
      let value: unknown;
      if (matched) value = REDACTED;
      else if (child !== null && typeof child === "object") value = copy(child, next ?? descending);
      else value = masksValues && child !== REDACTED ? maskScalar(child, values) : child;
      // A "__proto__" field of a parsed document is an own field, never the prototype.
      if (key === "__proto__")
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else (out as Record<string, unknown>)[key] = value;
    }
    return out;
  }

  return (value) => {
    if (value === null || value === undefined) return value;
    if (typeof value !== "object") return masksValues ? maskScalar(value, values) : value;
    return copy(value, roots);
  };
}

/** A path's steps, or null when it is not one of the forms compiled here. */
function compilePath(path: string): Step[] | null {
  const parts = JSONPath.toPathArray(path);
  if (parts[0] !== "$") return null;
  const steps: Step[] = [];
  let descend = false;
  for (const part of parts.slice(1)) {
    if (typeof part !== "string") return null;
    if (part === "..") {
      if (descend) return null;
      descend = true;
      continue;
    }
    if (part === "*") steps.push({ name: null, descend });
    else if (PLAIN_NAME.test(part) && part !== "length") steps.push({ name: part, descend });
    else return null;
    descend = false;
  }
  return descend ? null : steps;
}
