import type { PGlite } from "@electric-sql/pglite";

type Pending = {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: Error) => void;
};

/** Extended-query messages that leave the unnamed statement or portal for the next one to use. */
const EXTENDED = new Set(["P", "B", "D", "E", "C", "H", "F"].map((c) => c.charCodeAt(0)));
const TERMINATE = "X".charCodeAt(0);

/**
 * The one queue in front of an embedded PGlite that many wire connections share. PGlite is a
 * single backend: the unnamed prepared statement and portal belong to it, not to a connection.
 * pglite-socket's own queue hands the backend to whichever connection is next after every
 * message unless a transaction is open, so another connection's Parse, or a simple Query (which
 * drops the unnamed statement), could land between one connection's Parse and its Bind:
 * "bind message supplies 2 parameters, but prepared statement "" requires 3", `portal "" does
 * not exist`, "unnamed prepared statement does not exist" under concurrent requests.
 *
 * Here a connection holds the backend for a whole protocol unit — from its first extended-query
 * message to its Sync — and, as before, for as long as its transaction stays open. Others wait.
 * Implements the interface pglite-socket's PGLiteSocketHandler calls.
 */
export class ProtocolUnitQueue {
  private readonly queue: Pending[] = [];
  private processing = false;
  /** The connection that holds the backend between its messages; null: whoever is next. */
  private holder: number | null = null;

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      void this.process();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const pending = this.queue[i]!;
      if (pending.handlerId !== handlerId) continue;
      this.queue.splice(i, 1);
      pending.reject(new Error("Handler disconnected"));
    }
  }

  /** A connection went away: roll back what it left open and let the others on. */
  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    if (this.holder !== handlerId) return;
    if (this.db.isInTransaction()) await this.db.exec("ROLLBACK");
    this.holder = null;
    await this.process();
  }

  private next(): Pending | undefined {
    if (this.holder === null) return this.queue.shift();
    const index = this.queue.findIndex((p) => p.handlerId === this.holder);
    return index === -1 ? undefined : this.queue.splice(index, 1)[0];
  }

  private async process(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      for (let pending = this.next(); pending; pending = this.next()) {
        let bytes = 0;
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(pending!.message, {
              onRawData: (data) => {
                bytes += data.length;
                pending!.onData(data);
              },
            }),
          );
        } catch (error) {
          this.holder = null;
          pending.reject(error as Error);
          continue;
        }
        const type = pending.message[0]!;
        const midUnit = EXTENDED.has(type);
        this.holder = type !== TERMINATE && (midUnit || this.db.isInTransaction()) ? pending.handlerId : null;
        pending.resolve(bytes);
      }
    } finally {
      this.processing = false;
    }
  }
}
