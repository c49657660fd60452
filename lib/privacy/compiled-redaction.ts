import { JSONPath } from "jsonpath-plus";
import { maskScalar, REDACTED, redactJson, valueMaskChildPath, type Redaction } from "@/lib/privacy/redact";

/** One step of a path: a field name, or any child (`*`); `descend` when `..` came before it. */
type Step = { name: string | null; descend: boolean };
/** Where one path stands at a node: the step its next child must match; `index`: the path's place in the list. */
type State = { steps: readonly Step[]; at: number; index: number };

// Names JSONPath compares as plain own keys of an object. Others have rules of their own (an index
// also matches a string's characters, `length` an array's length, slices, unions): those paths stay on JSONPath.
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** A document masked, and where: `redactJson`'s answer. */
export type Masked = { value: unknown; redactedPaths: string[] };

/**
 * `redactJson(value, redaction).value`, for many documents under one redaction: the paths are
 * parsed once and every document is masked in one walk that copies as it goes, where redactJson
 * clones, then runs JSONPath once per path, then walks again for the value masks. An export masks
 * 100,000 responses; the walk was a third of its CPU time (docs/bench.md, "Exports under load").
 * A path outside the compiled forms (`$.a.b`, `$..a`, `*`) makes the whole redaction fall back to redactJson.
 */
export function compileRedaction(redaction: Redaction): (value: unknown) => unknown {
  const walk = compileWalk(redaction);
  if (!walk) return (value) => redactJson(value, redaction).value;
  return (value) => walk(value, null);
}

/**
 * `redactJson(value, redaction)` whole, the masked paths too, in the same one walk: for a page that
 * says what it masked (the record detail: docs/bench.md, "sixteenth pass").
 */
export function compileRedactionWithPaths(redaction: Redaction): (value: unknown) => Masked {
  const walk = compileWalk(redaction);
  if (!walk) return (value) => redactJson(value, redaction);
  return (value) => {
    if (value === null || value === undefined) return { value, redactedPaths: [] };
    const found = new Set<string>();
    const masked = walk(value, found);
    return { value: masked, redactedPaths: [...found].sort() };
  };
}

/**
 * The walk, or null when a path is not compiled. With a set, it also notes what redactJson reports:
 * JSONPath's path of each node a path masked (JSONPath runs the paths in turn, each finding all its
 * matches before masking them, so a node inside a masked one is reported too when the path that
 * finds it comes no later in the list), and the value masks' own paths (maskValuesIn's form).
 */
function compileWalk(redaction: Redaction): ((value: unknown, found: Set<string> | null) => unknown) | null {
  const compiled = redaction.paths.map(compilePath);
  if (compiled.some((steps) => steps === null)) return null;
  const roots: State[] = (compiled as Step[][])
    .map((steps, index) => ({ steps, at: 0, index }))
    .filter((state) => state.steps.length > 0);
  const values = redaction.values;
  const masksValues = values.email || values.cardNumbers;
  if (roots.length === 0 && !masksValues) return (value) => value;

  /** The states that go on to the next child, and the first path that masks `key` here (Infinity: none). */
  function stepInto(states: readonly State[], descending: readonly State[], key: string) {
    let first = Infinity;
    let next: State[] | null = null;
    for (const state of states) {
      const step = state.steps[state.at]!;
      if (step.name !== null && step.name !== key) continue;
      if (state.at + 1 === state.steps.length) first = Math.min(first, state.index);
      else (next ??= [...descending]).push({ steps: state.steps, at: state.at + 1, index: state.index });
    }
    return { first, next: next ?? descending };
  }

  function copy(node: object, states: readonly State[], keys: (string | number)[] | null, found: Set<string> | null) {
    const source = node as Record<string, unknown>;
    const isArray = Array.isArray(node);
    const out: Record<string, unknown> | unknown[] = isArray ? [] : {};
    // Paths that go on looking below whatever child comes next (`..`): the same for every child.
    const descending = states.filter((s) => s.steps[s.at]!.descend);
    for (const key of Object.keys(source)) {
      const child = source[key];
      const { first, next } = stepInto(states, descending, key);
      keys?.push(isArray ? Number(key) : key);
      let value: unknown;
      if (first !== Infinity) {
        value = REDACTED;
        if (found && keys) {
          found.add(JSONPath.toPathString(["$", ...keys] as never));
          if (child !== null && typeof child === "object") report(child, next, first, keys, found);
        }
      } else if (child !== null && typeof child === "object") value = copy(child, next, keys, found);
      else {
        value = masksValues && child !== REDACTED ? maskScalar(child, values) : child;
        if (found && keys && value !== child) found.add(maskValuesPath(keys));
      }
      keys?.pop();
      // A "__proto__" field of a parsed document is an own field, never the prototype.
      if (key === "__proto__")
        Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
      else (out as Record<string, unknown>)[key] = value;
    }
    return out;
  }

  /** Inside a node the path at `bound` masked: what the paths up to it found there before it was masked. */
  function report(
    node: object,
    states: readonly State[],
    bound: number,
    keys: (string | number)[],
    found: Set<string>,
  ) {
    const within = states.filter((s) => s.index <= bound);
    if (within.length === 0) return;
    const isArray = Array.isArray(node);
    const descending = within.filter((s) => s.steps[s.at]!.descend);
    for (const key of Object.keys(node)) {
      const child = (node as Record<string, unknown>)[key];
      const { first, next } = stepInto(within, descending, key);
      keys.push(isArray ? Number(key) : key);
      if (first !== Infinity) found.add(JSONPath.toPathString(["$", ...keys] as never));
      if (child !== null && typeof child === "object") report(child, next, Math.min(bound, first), keys, found);
      keys.pop();
    }
  }

  return (value, found) => {
    if (value === null || value === undefined) return value;
    if (typeof value !== "object") {
      if (!masksValues) return value;
      const masked = maskScalar(value, values);
      if (found && masked !== value) found.add("$");
      return masked;
    }
    return copy(value, roots, found ? [] : null, found);
  };
}

/** The path a value mask reports (maskValuesIn's form): array steps are the numbers among `keys`. */
function maskValuesPath(keys: readonly (string | number)[]): string {
  return keys.reduce<string>((path, key) => valueMaskChildPath(path, key, typeof key === "number"), "$");
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
