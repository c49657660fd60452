import type { DeclaredAnnotations, EffectiveAnnotations, HintName } from "./annotation-types";
import { HINT_NAMES } from "./annotation-types";

/** The spec's defaults: an unannotated tool is assumed to write, destroy, not be safe to repeat, and reach outside. */
export const SPEC_DEFAULTS: Record<HintName, boolean> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/**
 * Keeps only the four hints, and only when they are booleans: a server that sends
 * `idempotentHint: "yes"` has declared nothing a host can act on, so it reads as absent.
 */
export function declaredHints(annotations: Record<string, unknown> | undefined): DeclaredAnnotations {
  const declared: DeclaredAnnotations = {};
  for (const name of HINT_NAMES) {
    const value = annotations?.[name];
    if (typeof value === "boolean") declared[name] = value;
  }
  return declared;
}

export function effectiveAnnotations(declared: DeclaredAnnotations): EffectiveAnnotations {
  const readOnly = declared.readOnlyHint ?? SPEC_DEFAULTS.readOnlyHint;
  return {
    readOnlyHint: readOnly,
    destructiveHint: readOnly ? null : (declared.destructiveHint ?? SPEC_DEFAULTS.destructiveHint),
    idempotentHint: readOnly ? null : (declared.idempotentHint ?? SPEC_DEFAULTS.idempotentHint),
    openWorldHint: declared.openWorldHint ?? SPEC_DEFAULTS.openWorldHint,
  };
}

/** A host retries a timed-out call only on an explicit, applicable idempotentHint: true. */
export function claimsIdempotency(effective: EffectiveAnnotations): boolean {
  return effective.idempotentHint === true;
}
