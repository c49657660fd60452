import { PageHeader } from "@/components/ui/page-header";
import { PlannedPanel } from "@/components/ui/planned-panel";
import { requirePageActor } from "@/lib/auth/session-actor";

export const metadata = { title: "Metrics" };

export default async function MetricsPage() {
  await requirePageActor("metrics:read", "/metrics");
  return (
    <>
      <PageHeader title="Metrics" description="Is deduplication working for each tool, and what is it costing?" />
      <PlannedPanel
        items={[
          "Executions, replays served, in-flight rejections and suppression rate per tool and tenant over 1 h, 24 h and 48 h.",
          "Outcome unknown, stuck now, resolved by operators and by the reconciler; time to complete p50/p95.",
          "A tool whose writer records no events shows \u201cnot recorded\u201d, never 0.",
        ]}
      />
    </>
  );
}
