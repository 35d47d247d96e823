// While Redis counts as away but the socket did not close (a stall: a command timed out, the
// server was frozen for a moment), no `ready` event will come to say it is back. This asks
// instead: one PING at a time on an interval, until one is answered. A `ready` is not taken at
// its word either (a Cluster's client can be ready while a primary is still gone): it has the
// probe ask at once.

export class OutageProbe {
  private timer: NodeJS.Timeout | null = null;
  private asking = false;
  /** `askNow` came while a ping was out: if that one goes unanswered, ask again at once. */
  private again = false;

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

  /**
   * Asks now, then on the interval until answered. A ping already out may have been sent before
   * the reason to ask now (a `ready`): should it fail, the next one goes at once, not a whole
   * interval later.
   */
  askNow(): void {
    this.start();
    if (this.asking) this.again = true;
    else this.ask();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.again = false;
  }

  private ask(): void {
    if (this.asking) return;
    this.asking = true;
    this.ping().then(
      () => {
        this.asking = false;
        this.again = false;
        if (this.timer) this.answered();
      },
      (err: unknown) => {
        this.asking = false;
        if (!this.timer) return;
        this.unanswered(err);
        if (!this.again) return;
        this.again = false;
        this.ask();
      },
    );
  }
}
