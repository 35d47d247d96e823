import type { ChildProcess } from 'node:child_process';

export function haveRedisServer(): boolean;
export function haveRedisCli(): boolean;
export function freePort(): Promise<number>;
export function spawnRedisServer(
  port: number,
  dir: string,
  extra?: string[],
  opts?: { config?: string; ready?: string },
): Promise<ChildProcess>;
export function redisCli(args: string[]): string;
export function selfSignedCert(dir: string): { cert: string; key: string } | null;
export function spawnRedisCluster(
  dir: string,
  masters?: number,
  password?: string | null,
  tls?: { cert: string; key: string } | null,
): Promise<{
  ports: number[];
  children: Map<number, ChildProcess>;
  start(port: number): Promise<void>;
  cli(args: string[]): string;
  masters(): number[];
  healthy(): Promise<void>;
}>;
export function spawnRedisSentinels(
  dir: string,
  name: string,
  count?: number,
  auth?: { password?: string; sentinelPassword?: string },
): Promise<{
  primary: number;
  replica: number;
  sentinels: number[];
  children: Map<number, ChildProcess>;
  primaryNow(): number;
  /** Starts the primary or the replica (by port) again, empty, as first started. */
  startData(port: number): Promise<void>;
}>;
