import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/**
 * A TCP relay in front of an upstream that counts the connections the gateway opens to it, and
 * how many of them never carried a byte of request: the chaos suites' view of upstream sockets.
 */
export interface CountingProxy {
  url: string;
  /** Connections opened so far. */
  readonly opened: number;
  /** Connections open now. */
  readonly open: number;
  /** Connections that closed (or are open) without the gateway sending anything on them. */
  readonly unused: number;
  close(): Promise<void>;
}

export async function startCountingProxy(targetPort: number): Promise<CountingProxy> {
  let opened = 0;
  const live = new Set<Socket>();
  const silent = new Set<Socket>();
  let silentClosed = 0;
  const server = createServer((client) => {
    opened++;
    live.add(client);
    silent.add(client);
    const upstream = connect(targetPort, '127.0.0.1');
    client.once('data', () => silent.delete(client));
    client.pipe(upstream).pipe(client);
    const end = () => {
      if (silent.delete(client)) silentClosed++;
      live.delete(client);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    get opened() {
      return opened;
    },
    get open() {
      return live.size;
    },
    get unused() {
      return silentClosed + silent.size;
    },
    close() {
      for (const s of live) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
}
