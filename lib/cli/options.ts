import { InvalidArgumentError } from "commander";
import { isRole, type Role } from "@/lib/auth/roles";

export function parseRoleOption(value: string): Role {
  if (!isRole(value)) throw new InvalidArgumentError("expected viewer, operator or admin.");
  return value;
}

export function parseTenantOption(value: string, previous: string[]): string[] {
  const tenant = value.trim();
  if (!/^[^\s,]{1,200}$/.test(tenant)) throw new InvalidArgumentError("expected a tenant id without spaces or commas.");
  return [...previous, tenant];
}

export function parsePortOption(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new InvalidArgumentError("expected a port from 1 to 65535.");
  return port;
}
