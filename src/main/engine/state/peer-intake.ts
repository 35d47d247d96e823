// The door for what other instances wrote to Redis: every message and record read back goes
// through the shared schema, and what does not parse is dropped here, counted (GET /metrics) and
// logged at most once a minute, so a flood of garbage neither crashes the instance nor floods its
// log. The reasons logged name a field or a Redis error, never a value read.

import { type PeerMessage, readPeerMessage } from '../../../shared/schema/peer-records';
import { ValidationError } from '../../../shared/validation-error';
import type { Logger } from '../logger';

const WARN_EVERY_MS = 60_000;

export class PeerIntake {
  private count = 0;
  private unreported = 0;
  private lastWarnAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly log: Logger,
    private readonly now: () => number = Date.now,
  ) {}

  /** Messages and records dropped since start. */
  get dropped(): number {
    return this.count;
  }

  /** The checked message, or null when it did not parse (then counted and perhaps logged). */
  read(raw: unknown): PeerMessage | null {
    const now = this.now();
    try {
      if (typeof raw !== 'string') throw new ValidationError('message', 'is not a string');
      return readPeerMessage(raw, now);
    } catch (err) {
      this.reject(err);
      return null;
    }
  }

  /**
   * A record refused: by the schema, or by Redis itself (a script that met a key of the wrong
   * type or an unreadable number there answers an error, which is bad data, not an outage).
   */
  reject(err: unknown): void {
    const now = this.now();
    this.count++;
    this.unreported++;
    if (now - this.lastWarnAt < WARN_EVERY_MS) return;
    this.lastWarnAt = now;
    const why = err instanceof Error ? err.message.slice(0, 200) : 'unreadable';
    this.log.warn(
      `team state: ignored ${this.unreported} record(s) from Redis that did not parse (last: ${why})`,
    );
    this.unreported = 0;
  }
}
