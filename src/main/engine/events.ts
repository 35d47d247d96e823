import type { EngineEvent } from '../../shared/contract';

export type EventListener = (event: EngineEvent) => void;

/** Fan-out of engine events. A throwing listener must not break the request that emitted. */
export class EventBus {
  private readonly listeners = new Set<EventListener>();

  constructor(private readonly onListenerError: (err: unknown) => void = () => {}) {}

  on(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(event: EngineEvent): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (err) {
        this.onListenerError(err);
      }
    }
  }

  get size(): number {
    return this.listeners.size;
  }
}
