import { PageHeader } from "@/components/ui/page-header";
import { PlannedPanel } from "@/components/ui/planned-panel";
import { requirePageActor } from "@/lib/auth/session-actor";

export const metadata = { title: "Tools" };

export default async function ToolsPage() {
  await requirePageActor("tools:read", "/tools");
  return (
    <>
      <PageHeader title="Tools" description="Which tools claim idempotentHint, and whether the table backs the claim." />
      <PlannedPanel
        items={[
          "Annotations from a live tools/list of each configured MCP server, with the spec's defaults.",
          "Evidence from the table: records, replays, rejections, stuck and outcome-unknown rows.",
          "A verdict per tool with its explanation and the fix.",
        ]}
      />
    </>
  );
}
