import { createHash, randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createToken } from "@/lib/auth/tokens";
import { connectTestDb } from "../helpers/db";
import {
  startAlertmanager,
  startPrometheus,
  startWebhookReceiver,
  waitFor,
  type Engine,
} from "../helpers/prometheus-engines";
import { systemAdmin } from "../helpers/system-admin";

// End to end through the real engines: a claim goes stuck → Prometheus, evaluating the shipped
// deploy/prometheus/idem-alerts.yml every second, fires IdemClaimStuck → Alertmanager delivers it to a
// webhook on loopback → exactly one notification naming the tool and the console link; an admin
// releases the claim → the alert resolves and a resolved notification follows.
const baseUrl = inject("baseUrl");
const run = randomBytes(3).toString("hex");
const tenant = `alert-${run}`;
const tool = `prom_alert_${run}`;
const key = createHash("sha256").update(`prometheus-alerting|${run}`).digest("hex");
const system = systemAdmin("prometheus-alerting-test", { id: "prometheus-alerting" });

type Notification = {
  status: "firing" | "resolved";
  alerts: { status: string; labels: Record<string, string>; annotations: Record<string, string> }[];
};

describe("a stuck claim reaches a webhook through Prometheus and Alertmanager", () => {
  const db = connectTestDb();
  const client = new pg.Client({ connectionString: inject("databaseUrl") });
  const engines: Engine[] = [];
  let webhook: Awaited<ReturnType<typeof startWebhookReceiver>>;
  let adminToken: string;

  beforeAll(async () => {
    await client.connect();
    webhook = await startWebhookReceiver();
    const alertmanager = await startAlertmanager({
      webhook: webhook.url,
      matchers: ['alertname="IdemClaimStuck"', `tool="${tool}"`],
    });
    engines.push(alertmanager);
    const metricsToken = (await createToken(db, system, { name: `alert-${run}`, role: "viewer", scope: "metrics" }))
      .token;
    adminToken = (await createToken(db, system, { name: `alert-admin-${run}`, role: "admin" })).token;
    engines.push(
      await startPrometheus({
        target: new URL(baseUrl).host,
        token: metricsToken,
        ruleFiles: ["deploy/prometheus/idem-alerts.yml"],
        alertmanager: new URL(alertmanager.url).host,
      }),
    );
  });
  afterAll(async () => {
    for (const engine of engines.reverse()) await engine.stop();
    await webhook?.stop();
    await client.query("DELETE FROM idempotency WHERE tenant = $1", [tenant]);
    await client.end();
  });

  const notifications = () => webhook.bodies as Notification[];

  it("fires once, naming the tool and linking the Stuck page; resolving the claim resolves it", async () => {
    // Claimed 20 minutes ago and never completed: past the default 5 min threshold plus the rule's 5 min grace.
    await client.query(
      `INSERT INTO idempotency (key, tenant, tool, status, created_at) VALUES ($1, $2, $3, 'in_progress', now() - interval '20 minutes')`,
      [key, tenant, tool],
    );
    const firing = await waitFor("a firing notification", async () =>
      notifications().find((n) => n.status === "firing"),
    );
    expect(firing.alerts).toHaveLength(1);
    const [alert] = firing.alerts;
    expect(alert!.labels).toMatchObject({ alertname: "IdemClaimStuck", tool, severity: "page", console_url: baseUrl });
    expect(alert!.annotations.summary).toMatch(new RegExp(`^${tool}: a claim has been stuck for (19|20|21)m`));
    expect(alert!.annotations.console_link).toBe(`${baseUrl}/stuck`);

    // Prometheus keeps sending the firing alert; Alertmanager has notified once and stays quiet (repeat 1 h).
    await new Promise((r) => setTimeout(r, 4_000));
    expect(notifications().filter((n) => n.status === "firing")).toHaveLength(1);

    const released = await fetch(`${baseUrl}/api/v1/records/${key}/resolve`, {
      method: "POST",
      headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
      body: JSON.stringify({
        action: "release",
        force: true,
        confirm: "force release",
        reason: "alerting test: nothing was shipped",
        expectedUpdatedAt: null,
      }),
    });
    expect(released.status, await released.text()).toBe(200);

    const resolved = await waitFor("a resolved notification", async () =>
      notifications().find((n) => n.status === "resolved"),
    );
    expect(resolved.alerts.map((a) => [a.status, a.labels.tool])).toEqual([["resolved", tool]]);
    expect(notifications().filter((n) => n.status === "firing")).toHaveLength(1);
    console.log(`webhook body received (firing):\n${JSON.stringify(firing, null, 2)}`);
  });
});
