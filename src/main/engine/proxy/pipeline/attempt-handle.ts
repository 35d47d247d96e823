import type { FlowHold } from '../../resilience/flow';
import type { ProbeTicket, ResilienceManager } from '../../resilience/manager';
import type { Candidate } from '../../routing/resolve';

/**
 * The capacity one upstream attempt holds: its flow-control hold (`maxConcurrent` permit and
 * request-queue slot), its breaker admission (with the half-open probe ticket, if it is the
 * probe), its deadline and its place in the connection's in-flight count. Released once, in
 * `finally`, in the reverse order of taking; releasing twice does nothing.
 */
export class AttemptHandle {
  private hold: FlowHold | null = null;
  private ticket: ProbeTicket | null = null;
  private admitted = false;
  /** The admission's outcome was recorded (or must not be given back): the ticket is spent. */
  private settled = false;
  private deadline: NodeJS.Timeout | null = null;
  private released = false;

  constructor(
    private readonly candidate: Candidate,
    private readonly resilience: ResilienceManager,
    private readonly inFlight: Map<string, number>,
  ) {}

  holds(hold: FlowHold): void {
    this.hold = hold;
  }

  /** The breaker let the attempt go; the call must end within `ms` (then `onDeadline`). */
  admit(ticket: ProbeTicket | null, ms: number, onDeadline: () => void): void {
    this.admitted = true;
    this.ticket = ticket;
    this.deadline = setTimeout(onDeadline, ms);
    const id = this.candidate.connection.id;
    this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1);
  }

  /** The breaker learnt how the attempt ended: the probe ticket is not given back. */
  settle(): void {
    this.settled = true;
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    if (this.admitted) this.resilience.release(this.candidate, this.ticket, this.settled);
    if (this.deadline) {
      clearTimeout(this.deadline);
      const id = this.candidate.connection.id;
      this.inFlight.set(id, (this.inFlight.get(id) ?? 1) - 1);
    }
    this.hold?.release();
  }
}
