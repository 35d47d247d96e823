export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

// Secrets can reach a message through upstream error text or a URL; mask anything shaped like
// a credential before it is written anywhere.
const SECRET_PATTERNS: RegExp[] = [
  /\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}/g,
  /\bsk-ant-[A-Za-z0-9_-]{8,}/g,
  /\bbwl_[A-Za-z0-9_-]{8,}/g,
  /\b(Bearer)\s+[A-Za-z0-9._~+/=-]{8,}/gi,
  /\b(x-api-key|api[_-]?key|authorization|token)(["']?\s*[:=]\s*["']?)[^\s"',}]{8,}/gi,
];

export function redactSecrets(text: string, extraSecrets: Iterable<string> = []): string {
  let out = text;
  for (const secret of extraSecrets) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  for (const pattern of SECRET_PATTERNS) {
    out = out.replace(pattern, (match, p1: string, p2: string) => {
      if (/^bearer$/i.test(p1 ?? '')) return `${p1} [redacted]`;
      if (p2 !== undefined && /^(x-api-key|api[_-]?key|authorization|token)$/i.test(p1 ?? '')) {
        return `${p1}${p2}[redacted]`;
      }
      return match.slice(0, 3) === 'bwl' ? 'bwl_[redacted]' : '[redacted]';
    });
  }
  return out;
}

/** Line logger to stderr; every line passes through the redactor. */
export function createStderrLogger(level: LogLevel = 'info'): Logger {
  const min = ORDER[level];
  const write = (lvl: LogLevel, message: string) => {
    if (ORDER[lvl] < min) return;
    process.stderr.write(
      `${new Date().toISOString()} ${lvl.padEnd(5)} ${redactSecrets(message)}\n`,
    );
  };
  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
  };
}

export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
