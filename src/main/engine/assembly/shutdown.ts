import type { GatewayServer } from '../proxy/server';
import type { EngineParts } from './parts';

/**
 * Stops the engine: the server first (in-flight requests get `graceMs` to finish), then what they
 * used, and the store and the state backend last, once nothing writes to them any more.
 */
export async function shutDown(
  parts: EngineParts,
  server: GatewayServer,
  graceMs: number,
): Promise<void> {
  if (server.server.listening) await server.close(graceMs);
  await parts.pools.close();
  parts.resilience.close();
  await parts.flow.close();
  parts.subscription.close();
  parts.shapeRepairs.close();
  parts.usage.close();
  parts.quotas.flush();
  parts.maps.close();
  parts.store.close();
  await parts.shared.close();
}
