import { UserError } from "@/lib/errors/user-error";

/** Checks a DATABASE_URL before anything connects with it, so a typo gets one clear line. */
export function parseDatabaseUrl(raw: string, source = "DATABASE_URL"): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new UserError(
      `${source} is not a URL (${redactUrl(raw)}). Expected postgresql://user:password@host:5432/database.`,
    );
  }
  if (url.protocol !== "postgres:" && url.protocol !== "postgresql:") {
    throw new UserError(
      `${source} must start with postgresql:// (got ${url.protocol}//). Idem Console needs PostgreSQL; leave ${source} unset to use the embedded database.`,
    );
  }
  if (!url.hostname && !url.searchParams.get("host")) {
    throw new UserError(`${source} has no host. Expected postgresql://user:password@host:5432/database.`);
  }
  if (url.pathname.replace(/^\//, "") === "") {
    throw new UserError(`${source} names no database. Add it after the host: postgresql://host:5432/<database>.`);
  }
  return url;
}

/** The URL without its password, for messages and logs. */
export function redactUrl(raw: string): string {
  try {
    const url = new URL(raw);
    if (url.password) url.password = "***";
    return url.toString();
  } catch {
    return raw.length > 80 ? `${raw.slice(0, 77)}...` : raw;
  }
}
