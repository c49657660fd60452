"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ActionResult } from "@/components/ui/action-result";
import { Button } from "@/components/ui/button";
import { callApi } from "@/components/ui/api-client";
import { api } from "@/components/ui/api-endpoints";
import { Input } from "@/components/ui/input";
import { FileInput } from "@/components/ui/file-input";
import { Textarea } from "@/components/ui/textarea";

/** Admins upload a tools/list result (JSON) as a snapshot of a named server. */
export function UploadListingForm({ serverNames }: { serverNames: string[] }) {
  const router = useRouter();
  const [message, setMessage] = useState<{ ok: boolean; text: string; count: number } | null>(null);
  return (
    <form
      className="space-y-2"
      data-testid="upload-listing-form"
      onSubmit={async (event) => {
        event.preventDefault();
        const form = new FormData(event.currentTarget);
        const file = form.get("file");
        const text = file instanceof File && file.size > 0 ? await file.text() : String(form.get("listing") ?? "");
        const result = await callApi(api.toolsUpload, {
          query: { server: String(form.get("server") ?? "") },
          raw: { body: text, contentType: "application/json" },
        });
        setMessage((last) => ({
          ok: result.ok,
          text: result.ok ? "Stored as a new snapshot." : result.message,
          count: (last?.count ?? 0) + 1,
        }));
        if (result.ok) router.refresh();
      }}
    >
      <h3 className="text-sm font-semibold">Upload a tools/list result</h3>
      <Input
        name="server"
        aria-label="Server name"
        required
        list="tool-server-names"
        placeholder="server name"
        className="w-full bg-transparent"
      />
      <datalist id="tool-server-names">
        {serverNames.map((name) => (
          <option key={name} value={name} />
        ))}
      </datalist>
      <FileInput name="file" accept="application/json,.json" aria-label="tools/list result file (JSON)" />
      <Textarea
        name="listing"
        aria-label="tools/list result (JSON)"
        rows={3}
        placeholder='or paste: {"tools": [{"name": "…", "annotations": {…}}]}'
        className="w-full bg-transparent font-mono text-xs"
      />
      <Button type="submit" variant="secondary" size="sm">
        Upload
      </Button>
      <ActionResult resultKey={message?.count ?? null} label="upload result">
        {message ? (
          <p className={`text-xs ${message.ok ? "text-emerald-700" : "text-red-700"}`}>{message.text}</p>
        ) : null}
      </ActionResult>
    </form>
  );
}
