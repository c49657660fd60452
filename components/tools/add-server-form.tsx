"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ActionResult } from "@/components/ui/action-result";
import { Button } from "@/components/ui/button";
import { callApi } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";
import { Input } from "@/components/ui/input";
import { Textarea } from "@/components/ui/textarea";

/**
 * Admins add an HTTP server (URL and optional headers). No stdio here: a command would run on the
 * console's host, so stdio servers come only from idem.config.json. Header values are sent once
 * and never shown again.
 */
export function AddServerForm() {
  const router = useRouter();
  const [message, setMessage] = useState<{ ok: boolean; text: string; count: number } | null>(null);
  return (
    <form
      className="space-y-2"
      data-testid="add-server-form"
      onSubmit={async (event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const headers: Record<string, string> = {};
        for (const line of String(form.get("headers") ?? "").split("\n")) {
          const at = line.indexOf(":");
          if (at > 0) headers[line.slice(0, at).trim()] = line.slice(at + 1).trim();
        }
        const result = await callApi(api.toolsAddServer, {
          json: { name: String(form.get("name") ?? ""), url: String(form.get("url") ?? ""), headers },
        });
        setMessage((last) => ({
          ok: result.ok,
          text: result.ok ? "Added. Refresh the listings to audit it." : result.message,
          count: (last?.count ?? 0) + 1,
        }));
        if (result.ok) router.refresh();
      }}
    >
      <h3 className="text-sm font-semibold">Add an HTTP server</h3>
      <Input
        name="name"
        required
        aria-label="Server name"
        placeholder="name, e.g. billing"
        className="w-full bg-transparent"
      />
      <Input
        name="url"
        aria-label="Server URL"
        required
        type="url"
        placeholder="https://host/mcp"
        className="w-full bg-transparent"
      />
      <Textarea
        name="headers"
        aria-label="Headers, one a line"
        rows={2}
        placeholder="Authorization: Bearer … (one header a line; values are stored, never shown)"
        className="w-full bg-transparent font-mono text-xs"
      />
      <p className="text-xs text-slate-500">
        stdio servers run a command on this host: name them in idem.config.json, never here.
      </p>
      <Button type="submit" variant="secondary" size="sm">
        Add server
      </Button>
      <ActionResult resultKey={message?.count ?? null} label="add-server result">
        {message ? (
          <p className={`text-xs ${message.ok ? "text-emerald-700" : "text-red-700"}`}>{message.text}</p>
        ) : null}
      </ActionResult>
    </form>
  );
}
