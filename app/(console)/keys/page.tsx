import { PageHeader } from "@/components/ui/page-header";
import { PlannedPanel } from "@/components/ui/planned-panel";
import { requirePageActor } from "@/lib/auth/session-actor";

export const metadata = { title: "Keys" };

export default async function KeysPage() {
  await requirePageActor("keys:explain", "/keys");
  return (
    <>
      <PageHeader title="Keys" description="How a key is derived: sha256(tenant|subject|tool|canonical arguments|time bucket)." />
      <PlannedPanel
        items={[
          "Canonical form, material, bucket, key and ref for any call you describe.",
          "The keys of the previous, same and next bucket, with the records found for each.",
          "Why two argument texts produce different keys, byte by byte.",
        ]}
      />
    </>
  );
}
