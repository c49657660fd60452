/**
 * A progress bar for long CLI runs, behind the smallest interface the commands need, so that
 * swapping the drawing for a library (cli-progress) touches this file only. It draws on stderr,
 * and only on a terminal: cron mail and `--json` output stay free of carriage returns.
 */
export interface ProgressBar {
  /** (Re)starts the bar at 0 of `total`; a total of 0 draws nothing until the next start. */
  start(total: number, label: string): void;
  /** Moves the bar to `value` of the total; `detail` is a short status shown after the counts. */
  update(value: number, detail?: string): void;
  /** Draws the final state and ends the line. */
  stop(): void;
}

type Stream = Pick<NodeJS.WriteStream, "write" | "isTTY" | "columns">;

/** A bar on `stream` when it is a terminal (and `enabled`), otherwise one that draws nothing. */
export function createProgressBar(options: { enabled?: boolean; stream?: Stream } = {}): ProgressBar {
  const stream = options.stream ?? process.stderr;
  if (options.enabled === false || !stream.isTTY) return { start() {}, update() {}, stop() {} };
  return new TerminalProgressBar(stream);
}

/** Redraws at most ten times a second: a thousand rows a second must not cost a thousand redraws. */
const REDRAW_MS = 100;
const BAR_WIDTH = 24;

class TerminalProgressBar implements ProgressBar {
  private total = 0;
  private value = 0;
  private label = "";
  private detail = "";
  private drawnAt = 0;
  private active = false;
  private readonly started = { at: 0 };

  constructor(private readonly stream: Stream) {}

  start(total: number, label: string): void {
    if (this.active) this.stop();
    this.total = total;
    this.value = 0;
    this.label = label;
    this.detail = "";
    this.started.at = Date.now();
    this.active = total > 0;
    if (this.active) this.draw();
  }

  update(value: number, detail?: string): void {
    if (!this.active) return;
    this.value = Math.min(value, this.total);
    if (detail !== undefined) this.detail = detail;
    if (Date.now() - this.drawnAt >= REDRAW_MS || this.value === this.total) this.draw();
  }

  stop(): void {
    if (!this.active) return;
    this.draw();
    this.stream.write("\n");
    this.active = false;
  }

  private draw(): void {
    this.drawnAt = Date.now();
    const share = this.total === 0 ? 1 : this.value / this.total;
    const filled = Math.round(share * BAR_WIDTH);
    const seconds = ((Date.now() - this.started.at) / 1000).toFixed(1);
    const line = `${this.label} [${"#".repeat(filled)}${"-".repeat(BAR_WIDTH - filled)}] ${this.value}/${this.total} ${Math.floor(share * 100)}% ${seconds}s${this.detail ? `  ${this.detail}` : ""}`;
    const width = this.stream.columns ?? 120;
    // \x1b[2K clears the previous (possibly longer) line before redrawing on it.
    this.stream.write(`\r\x1b[2K${line.length > width - 1 ? line.slice(0, width - 1) : line}`);
  }
}
