// The node lists of team mode's highly available forms (issue 34): Cluster seed URLs and
// Sentinel addresses. Shared by the config file's reader and the engine's for the environment
// (`BREAKWATER_REDIS_CLUSTER`). An error names the field and the position, never the value
// (a seed URL can carry a password).

import { ValidationError } from '../validation-error';
import { array, string } from './values';

/** More nodes than this is a mistake, not a cluster (a seed list needs a few). */
const MAX_NODES = 64;
const HOST =
  /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*|\[[0-9A-Fa-f:.]+\])$/;

export interface NodeAddress {
  host: string;
  port: number;
}

function portOf(raw: string, field: string): number {
  const port = /^\d{1,5}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!(port >= 1 && port <= 65_535))
    throw new ValidationError(field, 'needs a port from 1 to 65535');
  return port;
}

function hostOf(raw: string, field: string): string {
  if (!HOST.test(raw)) throw new ValidationError(field, 'needs a host name or IP address');
  return raw.startsWith('[') ? raw.slice(1, -1) : raw;
}

function list(value: unknown, field: string): unknown[] {
  const items = array(value, field);
  if (items.length === 0) throw new ValidationError(field, 'must list at least one node');
  if (items.length > MAX_NODES)
    throw new ValidationError(field, `must list at most ${MAX_NODES} nodes`);
  return items;
}

/** `redis://[user:password@]host:port` (or `rediss://`, TLS): one Cluster seed node. */
export function clusterSeed(value: unknown, field: string): string {
  const raw = string(value, field);
  if (!/^rediss?:\/\//.test(raw))
    throw new ValidationError(field, 'must start with redis:// or rediss://');
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ValidationError(field, 'is not a valid URL');
  }
  hostOf(u.hostname, field);
  portOf(u.port, field);
  if (u.pathname.length > 1 || u.search || u.hash)
    throw new ValidationError(
      field,
      'must not name a database or options (a Cluster has database 0 only)',
    );
  return raw;
}

/** The Cluster seed list: every seed with the same scheme and credentials (one cluster). */
export function clusterSeeds(value: unknown, field: string): string[] {
  const seeds = list(value, field).map((v, i) => clusterSeed(v, `${field}[${i}]`));
  const auth = (s: string) => {
    const u = new URL(s);
    return `${u.protocol}${u.username}:${u.password}`;
  };
  seeds.forEach((s, i) => {
    if (auth(s) !== auth(seeds[0]!))
      throw new ValidationError(
        `${field}[${i}]`,
        'must use the scheme and credentials of the first seed',
      );
  });
  return seeds;
}

/** `host:port` (IPv6 in brackets): one Sentinel. */
export function sentinelAddress(value: unknown, field: string): NodeAddress {
  const raw = string(value, field);
  const colon = raw.lastIndexOf(':');
  if (colon <= 0) throw new ValidationError(field, 'must be host:port');
  return { host: hostOf(raw.slice(0, colon), field), port: portOf(raw.slice(colon + 1), field) };
}

export function sentinelAddresses(value: unknown, field: string): string[] {
  return list(value, field).map((v, i) => {
    sentinelAddress(v, `${field}[${i}]`);
    return v as string;
  });
}

/** `BREAKWATER_REDIS_CLUSTER`: seed URLs separated by commas. */
export function clusterSeedsFromEnv(raw: string): string[] {
  return clusterSeeds(
    raw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s.length > 0),
    'BREAKWATER_REDIS_CLUSTER',
  );
}
