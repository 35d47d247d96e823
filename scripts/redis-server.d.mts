import type { ChildProcess } from 'node:child_process';

export function haveRedisServer(): boolean;
export function freePort(): Promise<number>;
export function spawnRedisServer(port: number, dir: string): Promise<ChildProcess>;
