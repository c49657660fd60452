import { redactJson } from "@/lib/privacy/redact";

/** Why a value is never searched: it is of a class the pages mask (issue #28 §2). */
export type MaskedReason = "email" | "card_number";

// Both classes always, whatever redactValues says: a search must never confirm a value any page may mask.
const EMAIL_ONLY = { paths: [], values: { email: true, cardNumbers: false } };
const CARDS_ONLY = { paths: [], values: { email: false, cardNumbers: true } };

/**
 * The masked class a value holds (an e-mail address, a Luhn-valid card number, anywhere in it),
 * judged by the very detectors that mask responses (lib/privacy/redact.ts), or null.
 */
export function maskedValueClass(value: string): MaskedReason | null {
  if (redactJson(value, EMAIL_ONLY).value !== value) return "email";
  if (redactJson(value, CARDS_ONLY).value !== value) return "card_number";
  return null;
}

export const MASKED_VALUE_MESSAGE = "masked values cannot be searched";
