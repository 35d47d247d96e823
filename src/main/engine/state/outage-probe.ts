// While Redis counts as away but the socket did not close (a stall: a command timed out, the
// server was frozen for a moment), no `ready` event will come to say it is back. This asks
// instead: one PING at a time on an interval, until one is answered. A `ready` is not taken at
// its word either (a Cluster's client can be ready while a primary is still gone): it has the
// probe ask at once.

export class OutageProbe {
  private timer: NodeJS.Timeout | null = null;
  private asking = false;

  constructor(
    private readonly ping: () => Promise<unknown>,
    private readonly answered: () => void,
    private readonly unanswered: (err: unknown) => void,
    private readonly everyMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.ask(), this.everyMs);
    // A probe alone must not keep the process alive.
    this.timer.unref();
  }

  /** Asks now, then on the interval until answered. */
  askNow(): void {
    this.start();
    this.ask();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private ask(): void {
    if (this.asking) return;
    this.asking = true;
    this.ping()
      .then(
        () => {
          if (this.timer) this.answered();
        },
        (err: unknown) => {
          if (this.timer) this.unanswered(err);
        },
      )
      .finally(() => {
        this.asking = false;
      });
  }
}
