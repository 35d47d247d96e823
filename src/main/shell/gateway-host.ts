// The engine as the desktop app runs it: created once, listening on its port, and when that port
// is taken, moved to the next free one on request ("retry on another port"). What went wrong is
// kept as a StartupError the window, the tray and the IPC handlers read.
import { existsSync } from 'node:fs';
import type { BreakwaterConfig } from '../../shared/contract';
import type { StartupError } from '../../shared/ipc';
import {
  createEngine,
  type Engine,
  type EngineOptions,
  type Logger,
  loadConfigFile,
} from '../engine/index';
import { describeStartupError, type ShellArgs, type StartupWhere } from './decisions';
import { nextPorts } from './policy';

export interface GatewayHostOptions {
  args: ShellArgs;
  argErrors: readonly string[];
  dataDir: string;
  /** `--config FILE`, else `<data dir>/config.json` (read when it exists). */
  configPath: string;
  log: Logger;
  /** Engine options only the desktop knows when the app is ready (keychain, native module). */
  engineOptions(): Partial<EngineOptions>;
}

export interface GatewayHost {
  engine(): Engine | null;
  /** Resolves once the current start or retry settled: null when listening. */
  startupError(): Promise<StartupError | null>;
  /** The settled error now (null while starting or serving). */
  currentError(): StartupError | null;
  start(): Promise<StartupError | null>;
  retryOnOtherPort(): Promise<StartupError | null>;
}

export function createGatewayHost(opts: GatewayHostOptions): GatewayHost {
  let engine: Engine | null = null;
  let current: StartupError | null = null;
  let where: StartupWhere = { configPath: opts.configPath, dataDir: opts.dataDir };
  let settle: (error: StartupError | null) => void = () => {};
  let settled = new Promise<StartupError | null>((done) => {
    settle = done;
  });

  const finish = (error: StartupError | null): StartupError | null => {
    current = error;
    settle(error);
    settled = Promise.resolve(error);
    if (error) opts.log.error(`the gateway is not serving: ${error.message}`);
    return error;
  };

  const listen = async (port?: number): Promise<StartupError | null> => {
    if (!engine) return current;
    try {
      const info = await engine.listen(port);
      opts.log.info(`Breakwater listening on ${info.baseUrl}`);
      return finish(null);
    } catch (err) {
      const { host, port: configured } = engine.snapshot().gateway;
      where = { ...where, host, port: port ?? configured };
      return finish(describeStartupError(err, 'listen', where));
    }
  };

  return {
    engine: () => engine,
    startupError: () => settled,
    currentError: () => current,
    async start() {
      if (opts.argErrors.length > 0) {
        return finish({ code: 'args', message: opts.argErrors.join('; ') });
      }
      let config: BreakwaterConfig | undefined;
      try {
        if (opts.args.config || existsSync(opts.configPath)) {
          config = loadConfigFile(opts.configPath);
        }
      } catch (err) {
        return finish(describeStartupError(err, 'config'));
      }
      try {
        // Opening the store loads the native SQLite module: one built for another ABI fails
        // inside this try, so the window still opens and says why.
        engine = createEngine({
          config,
          dataDir: opts.dataDir,
          host: opts.args.host,
          port: opts.args.port,
          log: opts.log,
          ...opts.engineOptions(),
        });
      } catch (err) {
        return finish(describeStartupError(err, 'engine'));
      }
      return listen();
    },
    async retryOnOtherPort() {
      if (current?.code !== 'EADDRINUSE' || where.port === undefined) return current;
      const taken = where.port;
      const ports = nextPorts(taken);
      for (const port of ports) {
        const error = await listen(port);
        if (error?.code !== 'EADDRINUSE') return error;
      }
      where = { ...where, port: taken };
      return finish({
        ...where,
        code: 'EADDRINUSE',
        message: `${taken} and the next ${ports.length} ports are all in use; set gateway.port in ${opts.configPath} (or --port) to a free one and restart.`,
      });
    },
  };
}
