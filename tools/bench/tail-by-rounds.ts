import { summariseTail } from "./percentiles";

/** One background round's wall-clock span, epoch ms: the roll-up from `startedAt`, then the duplicate scan. */
export type RoundSpan = { startedAt: number; scanStartedAt: number | null; endedAt: number };

/**
 * Whether a phase's slowest writer calls line up with the console's background rounds (issue #31, item 3).
 * If the rounds made the tail, the slowest 1 % would overlap a round far more often than calls at large do.
 */
export type TailByRounds = {
  phaseMs: number;
  rounds: number;
  /** Shares of the phase's span that a round, its roll-up and its scan took. */
  roundShare: number;
  rollUpShare: number;
  scanShare: number;
  calls: number;
  /** Calls whose span (scheduled start to completion) overlapped a round. */
  callsInRounds: number;
  /** The slowest 1 % of the calls (at least one), and how many of them overlapped a round, its roll-up, its scan. */
  slowest: number;
  slowestInRounds: number;
  slowestInRollUp: number;
  slowestInScan: number;
  /** p99 of the calls that overlapped a round and of those that did not; null where there were none. */
  p99InRoundsMs: number | null;
  p99OutsideMs: number | null;
};

type Interval = { from: number; to: number };

const overlaps = (a: Interval, b: Interval) => a.from < b.to && a.to > b.from;
const overlapMs = (a: Interval, b: Interval) => Math.max(0, Math.min(a.to, b.to) - Math.max(a.from, b.from));

/** `dueAt[i]` (epoch ms) and `ms[i]` are one call's scheduled start and its latency from it. */
export function tailByRounds(calls: { dueAt: number[]; ms: number[] }, spans: RoundSpan[]): TailByRounds {
  const callSpans = calls.dueAt.map((from, i) => ({ from, to: from + calls.ms[i]!, ms: calls.ms[i]! }));
  // A loop, not Math.min(...spans): an hour-long phase has ~720,000 calls, past what a spread call may pass.
  const phase: Interval = { from: Infinity, to: -Infinity };
  for (const call of callSpans) {
    phase.from = Math.min(phase.from, call.from);
    phase.to = Math.max(phase.to, call.to);
  }
  const phaseMs = callSpans.length > 0 ? phase.to - phase.from : 0;
  const inPhase = spans.filter((s) => overlaps({ from: s.startedAt, to: s.endedAt }, phase));
  const rollUps = inPhase.map((s) => ({ from: s.startedAt, to: s.scanStartedAt ?? s.endedAt }));
  const scans = inPhase.filter((s) => s.scanStartedAt !== null).map((s) => ({ from: s.scanStartedAt!, to: s.endedAt }));
  const rounds = inPhase.map((s) => ({ from: s.startedAt, to: s.endedAt }));
  const share = (parts: Interval[]) =>
    phaseMs > 0 ? parts.reduce((sum, part) => sum + overlapMs(part, phase), 0) / phaseMs : 0;
  const within = (parts: Interval[]) => (call: Interval) => parts.some((part) => overlaps(call, part));
  const inRound = within(rounds);
  const slowest = [...callSpans].sort((a, b) => b.ms - a.ms).slice(0, Math.max(1, Math.ceil(callSpans.length / 100)));
  const p99 = (of: typeof callSpans) => (of.length > 0 ? summariseTail(of.map((c) => c.ms)).p99Ms : null);
  return {
    phaseMs,
    rounds: inPhase.length,
    roundShare: share(rounds),
    rollUpShare: share(rollUps),
    scanShare: share(scans),
    calls: callSpans.length,
    callsInRounds: callSpans.filter(inRound).length,
    slowest: callSpans.length > 0 ? slowest.length : 0,
    slowestInRounds: slowest.filter(inRound).length,
    slowestInRollUp: slowest.filter(within(rollUps)).length,
    slowestInScan: slowest.filter(within(scans)).length,
    p99InRoundsMs: p99(callSpans.filter(inRound)),
    p99OutsideMs: p99(callSpans.filter((c) => !inRound(c))),
  };
}
