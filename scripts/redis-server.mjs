// Throwaway redis-servers on free loopback ports, without persistence, for the team-mode tests
// (tests/support/redis.ts) and benchmark (bench/team.mjs): one server, a Redis Cluster, or a
// primary with a replica behind Sentinels. Debian's `redis-server` and `redis-tools` packages.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** True when a `redis-server` binary is on the PATH. */
export function haveRedisServer() {
  const r = spawnSync('redis-server', ['--version']);
  return !r.error && r.status === 0;
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const address = s.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      s.close(() => resolve(port));
    });
  });
}

/** `n` distinct free ports, none of them in `taken`. */
async function freePorts(n, taken = []) {
  const ports = new Set();
  while (ports.size < n) {
    const port = await freePort();
    if (!taken.includes(port)) ports.add(port);
  }
  return [...ports];
}

/**
 * A self-signed certificate for 127.0.0.1 (its own CA) in `dir`, for TLS tests; null when
 * `openssl` is missing.
 */
export function selfSignedCert(dir) {
  const cert = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const r = spawnSync('openssl', [
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    key,
    '-out',
    cert,
    '-days',
    '2',
    '-subj',
    '/CN=127.0.0.1',
    '-addext',
    'subjectAltName=IP:127.0.0.1',
  ]);
  return !r.error && r.status === 0 ? { cert, key } : null;
}

/** True when `redis-cli` (needed to create a Cluster) is on the PATH too. */
export function haveRedisCli() {
  const r = spawnSync('redis-cli', ['--version']);
  return !r.error && r.status === 0;
}

/**
 * Starts redis-server on `port` with `dir` as its folder; resolves with the child once ready.
 * `extra`: more arguments; `config`: a config file to read first (Sentinel needs one);
 * `ready`: the log line that says it serves.
 */
export async function spawnRedisServer(port, dir, extra = [], opts = {}) {
  const ready = opts.ready ?? 'Ready to accept connections';
  const child = spawn(
    'redis-server',
    [
      ...(opts.config ? [opts.config] : []),
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--save',
      '',
      '--appendonly',
      'no',
      ...extra,
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  let out = '';
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('redis-server did not start in 10 s')), 10_000);
    child.stdout.on('data', (d) => {
      out += d;
      if (!out.includes(ready)) return;
      clearTimeout(timer);
      resolve();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited (${code}): ${out.slice(-500)}`));
    });
  });
  child.stdout.resume();
  return child;
}

/** Runs `redis-cli` with `args`; resolves with its output, rejects on a failure. */
export function redisCli(args) {
  const r = spawnSync('redis-cli', args, { encoding: 'utf8', timeout: 30_000 });
  if (r.error || r.status !== 0)
    throw new Error(`redis-cli ${args.join(' ')} failed: ${r.error ?? r.stderr ?? r.stdout}`);
  return r.stdout;
}

/** Waits until `check()` (synchronous) is true, up to `ms`. */
async function waitFor(what, check, ms = 20_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      if (check()) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** `redis-cli` arguments with a password first, when there is one. */
function authed(password, args) {
  return password ? ['-a', password, '--no-auth-warning', ...args] : args;
}

/** Creates the cluster from its nodes and waits until it serves, every replica synced. */
async function createCluster(cli, ports, children) {
  cli([
    '--cluster',
    'create',
    ...ports.map((p) => `127.0.0.1:${p}`),
    '--cluster-replicas',
    '1',
    '--cluster-yes',
  ]);
  const healthy = () =>
    [...children.keys()].every((p) =>
      cli(['-p', String(p), 'cluster', 'info']).includes('cluster_state:ok'),
    );
  await waitFor('the cluster to be ok on every node', healthy);
  await waitFor('every replica to sync', () =>
    ports.every((p) => {
      const info = cli(['-p', String(p), 'info', 'replication']);
      return info.includes('role:master') || info.includes('master_link_status:up');
    }),
  );
}

/**
 * A Redis Cluster of `masters` primaries with one replica each, every node in its own folder
 * under `dir` (a node's `nodes.conf` is kept there, so a killed node started again rejoins).
 * Nodes time out after 1 s, so a replica takes over a killed primary within a few seconds.
 * With `password`, every node requires it (the `default` user's); with `tls` (`{ cert, key }`
 * files, the certificate its own CA), every node speaks TLS only, to clients and to each other.
 */
export async function spawnRedisCluster(dir, masters = 3, password = null, tls = null) {
  const tlsCli = tls ? ['--tls', '--cacert', tls.cert] : [];
  const cli = (args) => redisCli([...tlsCli, ...authed(password, args)]);
  const ports = await freePorts(masters * 2);
  // Each node's cluster bus on a port of its own: the default (its port + 10,000) may be taken,
  // or above 65,535, and the node would not start.
  const bus = new Map((await freePorts(masters * 2, ports)).map((b, i) => [ports[i], b]));
  const args = (port) => [
    '--cluster-enabled',
    'yes',
    '--cluster-port',
    String(bus.get(port)),
    '--cluster-config-file',
    `nodes-${port}.conf`,
    '--cluster-node-timeout',
    '1000',
    // A replica that never synced cannot take over: sync at once, not after 5 s.
    '--repl-diskless-sync-delay',
    '0',
    ...(password ? ['--requirepass', password, '--masterauth', password] : []),
    ...(tls
      ? [
          '--port',
          '0',
          '--tls-port',
          String(port),
          '--tls-cert-file',
          tls.cert,
          '--tls-key-file',
          tls.key,
          '--tls-ca-cert-file',
          tls.cert,
          '--tls-auth-clients',
          'no',
          '--tls-cluster',
          'yes',
          '--tls-replication',
          'yes',
        ]
      : []),
  ];
  const nodeDir = (port) => {
    const d = join(dir, String(port));
    mkdirSync(d, { recursive: true });
    return d;
  };
  const children = new Map();
  const start = async (port) => {
    children.set(port, await spawnRedisServer(port, nodeDir(port), args(port)));
  };
  try {
    await Promise.all(ports.map(start));
    await createCluster(cli, ports, children);
  } catch (err) {
    // A cluster that did not form leaves no server behind.
    for (const c of children.values()) c.kill('SIGKILL');
    throw err;
  }
  return {
    ports,
    children,
    start,
    /** redis-cli with the cluster's password. */
    cli,
    /** The ports of the primaries now. */
    masters() {
      const alive = [...children.entries()].find(
        ([, c]) => c.exitCode === null && c.signalCode === null,
      );
      const out = cli(['-p', String(alive?.[0]), 'cluster', 'nodes']);
      return out
        .split('\n')
        .filter((l) => /\bmaster\b/.test(l) && !/\bfail\b/.test(l))
        .map((l) => Number(/:(\d+)@/.exec(l)?.[1]))
        .filter((p) => children.has(p));
    },
    /** Waits until every slot is served again (after a primary was killed). */
    healthy: () =>
      waitFor('the cluster to be ok again', () => {
        const alive = [...children.entries()].filter(
          ([, c]) => c.exitCode === null && c.signalCode === null,
        );
        return alive.every(([p]) =>
          cli(['-p', String(p), 'cluster', 'info']).includes('cluster_state:ok'),
        );
      }),
  };
}

/**
 * A primary with one replica and `count` Sentinels monitoring them as `name` (quorum: a
 * majority), each in its own folder under `dir`. The primary is declared down after 1 s.
 * `auth.password`: the data nodes require it; `auth.sentinelPassword`: the Sentinels do.
 */
export async function spawnRedisSentinels(dir, name, count = 3, auth = {}) {
  const children = new Map();
  try {
    return await setUpSentinels(dir, name, count, auth, children);
  } catch (err) {
    // A setup that did not come up leaves no server behind.
    for (const c of children.values()) c.kill('SIGKILL');
    throw err;
  }
}

async function setUpSentinels(dir, name, count, auth, children) {
  const { password = null, sentinelPassword = null } = auth;
  const cli = (args) => redisCli(authed(password, args));
  const sentinelCli = (args) => redisCli(authed(sentinelPassword, args));
  const [primary, replica] = await freePorts(2);
  const sub = (n) => {
    const d = join(dir, n);
    mkdirSync(d, { recursive: true });
    return d;
  };
  const dataArgs = new Map();
  const startData = async (port) => {
    const [dirName, args] = dataArgs.get(port);
    children.set(port, await spawnRedisServer(port, sub(dirName), args));
  };
  const quick = [
    '--repl-diskless-sync-delay',
    '0',
    ...(password ? ['--requirepass', password, '--masterauth', password] : []),
  ];
  dataArgs.set(primary, ['primary', quick]);
  dataArgs.set(replica, ['replica', [...quick, '--replicaof', '127.0.0.1', String(primary)]]);
  await startData(primary);
  await startData(replica);
  await waitFor('the replica to sync', () =>
    cli(['-p', String(replica), 'info', 'replication']).includes('master_link_status:up'),
  );
  const sentinels = [];
  for (let i = 0; i < count; i++) {
    const port = await freePort();
    const d = sub(`sentinel-${i}`);
    const conf = join(d, 'sentinel.conf');
    writeFileSync(
      conf,
      [
        `sentinel monitor ${name} 127.0.0.1 ${primary} ${Math.floor(count / 2) + 1}`,
        `sentinel down-after-milliseconds ${name} 1000`,
        `sentinel failover-timeout ${name} 5000`,
        `sentinel parallel-syncs ${name} 1`,
        ...(password ? [`sentinel auth-pass ${name} ${password}`] : []),
        ...(sentinelPassword ? [`requirepass ${sentinelPassword}`] : []),
        '',
      ].join('\n'),
    );
    children.set(
      port,
      await spawnRedisServer(port, d, ['--sentinel'], { config: conf, ready: 'Sentinel ID is' }),
    );
    sentinels.push(port);
  }
  const primaryNow = () => {
    const out = sentinelCli([
      '-p',
      String(sentinels[0]),
      'sentinel',
      'get-master-addr-by-name',
      name,
    ]);
    return Number(out.trim().split('\n')[1]);
  };
  await waitFor('every Sentinel to see the replica', () =>
    sentinels.every((p) =>
      /num-slaves\n1\b/.test(sentinelCli(['-p', String(p), 'sentinel', 'master', name])),
    ),
  );
  return { primary, replica, sentinels, children, primaryNow, startData };
}
