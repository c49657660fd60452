import { BUCKET_KEYED_TOOLS, bucketOf } from "@/tools/demo/traffic/buckets";
import { repeatDelayMs, type DemoHost } from "@/tools/demo/traffic/demo-hosts";
import type { Customer } from "@/tools/demo/traffic/demo-population";
import type { Prng } from "@/tools/demo/traffic/prng";
import type { PlannedCall, Step } from "@/tools/demo/traffic/plan-types";

/** A repeat this close to its bucket's end could slip past it by the real milliseconds a call takes. */
const EDGE_MARGIN_MS = 1000;

export type BuildInput = { rng: Prng; start: Date; end: Date; nextOrderId: () => string };

/** One scenario's calls, built relative to its start; calls planned after `end` are dropped. */
export class ScenarioWriter {
  readonly steps: Step[] = [];
  constructor(
    readonly input: BuildInput,
    readonly customer: Customer,
    readonly host: DemoHost,
  ) {}

  at(offsetMs: number): Date {
    return new Date(this.input.start.getTime() + offsetMs);
  }

  call(
    tool: PlannedCall["tool"],
    offsetMs: number,
    args: PlannedCall["args"],
    extra: Partial<PlannedCall> = {},
  ): PlannedCall {
    return {
      tool,
      at: this.at(offsetMs),
      tenant: this.customer.tenant,
      subject: this.customer.subject,
      args,
      ...extra,
    };
  }

  /** How long after a call this scenario's host repeats it: its habit (demo-hosts.ts). */
  repeatDelay(): number {
    return repeatDelayMs(this.host, this.input.rng);
  }

  /**
   * `first` again, `delayMs` after it; none if a bucket-keyed call's repeat would reach the next
   * bucket. Such a repeat runs again under another key: that is bucket_edge_retry's story, told a
   * few times a day, not every retry's that happens to straddle an edge (dozens a day).
   */
  repeat(first: PlannedCall, delayMs: number, extra: Partial<PlannedCall> = {}): PlannedCall | undefined {
    const at = first.at.getTime() + delayMs;
    if (BUCKET_KEYED_TOOLS.has(first.tool) && bucketOf(new Date(at + EDGE_MARGIN_MS)) !== bucketOf(first.at))
      return undefined;
    return {
      tool: first.tool,
      at: new Date(at),
      tenant: first.tenant,
      subject: first.subject,
      args: first.args,
      ...extra,
    };
  }

  step(...calls: (PlannedCall | undefined)[]): this {
    const kept = calls.filter((c): c is PlannedCall => c !== undefined && c.at.getTime() <= this.input.end.getTime());
    if (kept.length > 0) this.steps.push(kept);
    return this;
  }
}
