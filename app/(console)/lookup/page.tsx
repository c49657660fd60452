import { PageHeader } from "@/components/ui/page-header";
import { PlannedPanel } from "@/components/ui/planned-panel";
import { requirePageActor } from "@/lib/auth/session-actor";

export const metadata = { title: "Lookup" };

export default async function LookupPage() {
  await requirePageActor("records:lookup", "/lookup");
  return (
    <>
      <PageHeader title="Lookup" description="Paste a customer's error message, a ref or a full key and land on the record." />
      <PlannedPanel
        items={[
          "Extracts every 12-hex ref or 64-hex key from whatever is pasted.",
          "One match opens the record; several let you choose by tenant, tool and time.",
          "No match says why: never existed, trimmed after the retention window, or a tenant you cannot see.",
        ]}
      />
    </>
  );
}
