import type { Page } from "playwright-core";
import type { Truth } from "./figures";
import type { TruthDb } from "./truth-sql";

/** What every surface's extractor gets: the console under test, its database's truth, API tokens. */
export type SurfaceContext = {
  database: string;
  baseUrl: string;
  truth: TruthDb;
  /** Bearer tokens: an admin (every tenant) and a viewer limited to tenant acme. */
  tokens: { admin: string; acme: string };
};

export type PageContext = SurfaceContext & { page: Page };

export async function getJson<T>(ctx: SurfaceContext, path: string, token = ctx.tokens.admin): Promise<T> {
  const response = await fetch(`${ctx.baseUrl}${path}`, { headers: { authorization: `Bearer ${token}` } });
  const body = await response.text();
  if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${body.slice(0, 500)}`);
  return JSON.parse(body) as T;
}

export async function postJson<T>(
  ctx: SurfaceContext,
  path: string,
  payload: unknown,
  token = ctx.tokens.admin,
): Promise<T> {
  const response = await fetch(`${ctx.baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(payload),
  });
  const body = await response.text();
  if (!response.ok) throw new Error(`POST ${path}: ${response.status} ${body.slice(0, 500)}`);
  return JSON.parse(body) as T;
}

/**
 * Reads the console between two instants and computes the truth at both: figures that move with
 * time (claims turning stuck, windows sliding) must lie between the two truths.
 */
export async function bracket<S, T>(
  read: () => Promise<S>,
  truthAt: (now: Date) => Promise<T>,
): Promise<{ shown: S; before: T; after: T }> {
  const t0 = new Date();
  const shown = await read();
  const t1 = new Date();
  const [before, after] = await Promise.all([truthAt(t0), truthAt(t1)]);
  return { shown, before, after };
}

export function between(a: number | null | undefined, b: number | null | undefined): Truth {
  const x = a ?? null;
  const y = b ?? null;
  if (x === null && y === null) return null;
  if (x === null || y === null) return { min: Math.min(x ?? y!, y ?? x!), max: Math.max(x ?? y!, y ?? x!) };
  return x === y ? x : { min: Math.min(x, y), max: Math.max(x, y) };
}

/** A count as the pages write it: "≈ 13,283", "500+", "1,204", "not recorded" (null). */
export function parseShownCount(text: string | null): { value: number | null; estimate: boolean; atLeast: boolean } {
  const t = (text ?? "").trim();
  const digits = /(\d[\d,]*(?:\.\d+)?)/.exec(t);
  return {
    value: digits ? Number((digits[1] ?? "").replace(/,/g, "")) : null,
    estimate: t.includes("≈"),
    atLeast: /\d\s*\+/.test(t),
  };
}

/** "12.3%" (or "12.3 % of 4,812 calls") as a fraction; null when it says "not recorded" or "—". */
export function parseShownRate(text: string | null): number | null {
  const m = /(\d+(?:\.\d+)?)\s*%/.exec(text ?? "");
  return m ? Number(m[1]) / 100 : null;
}

/** Signs in with a demo account's password, as a person would, on this console. */
export async function signIn(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/`);
  await page.waitForURL(/\/sign-in\?callbackUrl=/);
  await page.fill('input[name="email"]', email);
  await page.fill('input[name="password"]', password);
  await page.click('button[type="submit"]');
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
}
