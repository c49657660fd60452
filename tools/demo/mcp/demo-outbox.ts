/** The demo's mail service: sends nothing, counts what would have gone out (the email side effect). */
export function createDemoOutbox() {
  let sent = 0;
  const byCharge = new Map<string, number>();
  return {
    send(input: { to: string; chargeId: string; key: string; at: Date }) {
      sent += 1;
      byCharge.set(input.chargeId, (byCharge.get(input.chargeId) ?? 0) + 1);
      // Derived from the key, so the same history gives the same ids.
      return {
        email_id: `em_${input.key.slice(0, 24)}`,
        to: input.to,
        charge_id: input.chargeId,
        sent_at: input.at.toISOString(),
      };
    },
    stats: () => ({ sent, duplicates: [...byCharge.values()].reduce((n, c) => n + Math.max(0, c - 1), 0) }),
  };
}

export type DemoOutbox = ReturnType<typeof createDemoOutbox>;
