// While Redis counts as away but the socket did not close (a stall: a command timed out, the
// server was frozen for a moment), no `ready` event will come to say it is back. This asks
// instead: one PING at a time on an interval, until one is answered.

export class OutageProbe {
  private timer: NodeJS.Timeout | null = null;
  private asking = false;

  constructor(
    private readonly ping: () => Promise<unknown>,
    private readonly answered: () => void,
    private readonly everyMs: number,
  ) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.ask(), this.everyMs);
    // A probe alone must not keep the process alive.
    this.timer.unref();
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
        () => {},
      )
      .finally(() => {
        this.asking = false;
      });
  }
}
