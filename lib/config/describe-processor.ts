import type { IdemConfig } from "@/lib/config/schema";

/** How the console asks about a tool, in words for the record page ("GET http://…/references/{key}"). */
export function describeProcessor(config: IdemConfig, tool: string | null): string | null {
  const processor = tool === null ? undefined : config.tools[tool]?.processor;
  if (!processor) return null;
  if (processor.type === "http") return `GET ${processor.baseUrl.replace(/\/+$/, "")}/references/{key}`;
  return `MCP tool ${processor.tool} on server ${processor.server}`;
}
