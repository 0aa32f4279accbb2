import type { EventName, EventPayload } from '@shared/contract';

export type EventListener = <E extends EventName>(event: E, payload: EventPayload<E>) => void;

/** Fans service events out to every host listener (an Electron window, the bridge's event stream, the CLI). */
export class EventHub {
  private readonly listeners = new Set<EventListener>();

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  emit<E extends EventName>(event: E, payload: EventPayload<E>): void {
    for (const listener of this.listeners) listener(event, payload);
  }
}
