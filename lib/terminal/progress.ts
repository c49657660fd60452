import { SingleBar } from "cli-progress";

/**
 * A progress bar for long CLI runs (cli-progress), behind the smallest interface the commands
 * need. It draws on stderr, and only on a terminal: cron mail and `--json` output stay free of
 * carriage returns.
 */
export interface ProgressBar {
  /** (Re)starts the bar at 0 of `total`; a total of 0 draws nothing until the next start. */
  start(total: number, label: string): void;
  /** Moves the bar to `value` of the total; `detail` is a short status shown after the counts. */
  update(value: number, detail?: string): void;
  /** Draws the final state and ends the line. */
  stop(): void;
}

type Stream = NodeJS.WriteStream;

/** A bar on `stream` when it is a terminal (and `enabled`), otherwise one that draws nothing. */
export function createProgressBar(options: { enabled?: boolean; stream?: Stream } = {}): ProgressBar {
  const stream = options.stream ?? process.stderr;
  if (options.enabled === false || !stream.isTTY) return { start() {}, update() {}, stop() {} };
  return new TerminalProgressBar(stream);
}

class TerminalProgressBar implements ProgressBar {
  private readonly bar: SingleBar;
  private active = false;

  constructor(stream: Stream) {
    this.bar = new SingleBar({
      stream,
      format: "{label} [{bar}] {value}/{total} {percentage}% {duration_formatted}  {detail}",
      barsize: 24,
      barCompleteChar: "#",
      barIncompleteChar: "-",
      // Ten redraws a second at most: a thousand rows a second must not cost a thousand redraws.
      fps: 10,
      hideCursor: true,
      clearOnComplete: false,
    });
  }

  start(total: number, label: string): void {
    if (this.active) this.stop();
    this.active = total > 0;
    if (this.active) this.bar.start(total, 0, { label, detail: "" });
  }

  update(value: number, detail?: string): void {
    if (!this.active) return;
    this.bar.update(value, detail === undefined ? undefined : { detail });
  }

  stop(): void {
    if (!this.active) return;
    this.bar.stop();
    this.active = false;
  }
}
