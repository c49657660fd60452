import type { Metadata } from "next";
import { connection } from "next/server";
import type { ReactNode } from "react";
import "./globals.css";

export const metadata: Metadata = {
  title: { default: "Idem Console", template: "%s · Idem Console" },
  description: "The idempotency table of your MCP tool servers: records, stuck claims, evidence.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // Every page renders per request, so Next.js can put this request's CSP nonce on its scripts
  // (a prerendered page, e.g. the 404, would carry none and never hydrate).
  await connection();
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">{children}</body>
    </html>
  );
}
