import { type FormEvent, useState } from 'react';
import { Card } from '../../components/ui';
import { useDashboard } from '../../state/store';

/**
 * The gateway's host and port, changed while it serves: the new address is up before the old one
 * stops, and is kept for the next start. The browser page follows to the new address by itself.
 */
export function GatewayAddress() {
  const bridge = useDashboard((s) => s.bridge);
  const notify = useDashboard((s) => s.notify);
  const gateway = useDashboard((s) => s.snapshot?.gateway);
  const [host, setHost] = useState<string | null>(null);
  const [port, setPort] = useState<string | null>(null);
  const [error, setError] = useState<{ field: string | null; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  if (!gateway || !bridge) return null;
  const shownHost = host ?? gateway.host;
  const shownPort = port ?? String(gateway.port);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    const trimmed = shownPort.trim();
    const r = await bridge.setGatewayAddress({
      host: shownHost.trim(),
      port: /^\d+$/.test(trimmed) ? Number(trimmed) : Number.NaN,
    });
    setBusy(false);
    if (!r.ok) {
      setError({ field: r.field ?? null, text: r.error });
      return;
    }
    setError(null);
    setHost(null);
    setPort(null);
    notify('ok', `The gateway listens on ${r.data.baseUrl}; point your agents there`);
  };

  const unchanged = shownHost.trim() === gateway.host && shownPort.trim() === String(gateway.port);
  return (
    <Card title="Gateway address">
      <form onSubmit={(e) => void submit(e)} aria-label="Gateway address" className="row">
        <label htmlFor="gateway-host">Host</label>
        <input
          id="gateway-host"
          value={shownHost}
          aria-invalid={error?.field === 'host' ? true : undefined}
          onChange={(e) => setHost(e.target.value)}
        />
        <label htmlFor="gateway-port">Port</label>
        <input
          id="gateway-port"
          value={shownPort}
          inputMode="numeric"
          aria-invalid={error?.field === 'port' ? true : undefined}
          onChange={(e) => setPort(e.target.value)}
        />
        <button
          type="submit"
          className="btn btn-primary"
          disabled={unchanged || busy}
          data-testid="move-gateway"
        >
          Move
        </button>
      </form>
      <p className="muted small">
        Now {gateway.baseUrl}. A host other than 127.0.0.1 or localhost is reachable from the
        network and needs a gateway API key first. The change is kept for the next start, unless
        --host/--port or an edit of gateway.host/gateway.port in the config file says otherwise.
      </p>
      <p className={`form-error ${error ? '' : 'hidden'}`} role="alert">
        {error?.text ?? '\u00a0'}
      </p>
    </Card>
  );
}
