/**
 * Runs a write some time after the first change instead of on every change, so state that
 * must survive a restart reaches SQLite in batches and never on the request path.
 */
export class DeferredFlush {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly intervalMs: number,
    private readonly write: () => void,
  ) {}

  /** Plans a write unless one is already planned. */
  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.write();
    }, this.intervalMs);
    this.timer.unref();
  }

  /** Writes now (at shutdown); nothing planned stays behind. */
  flushNow(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.write();
  }
}
