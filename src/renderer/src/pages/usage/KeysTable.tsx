import { type FormEvent, useState } from 'react';
import type { CreatedGatewayKey, GatewayKeyView } from '../../../../shared/contract';
import { Card, CopyButton, Empty, TableHead } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { downloadCsv } from './csv';

function usd(n: number): string {
  return `$${n.toFixed(n < 1 ? 4 : 2)}`;
}

/** "used / limit" of each limit the key has, with how full it is. */
function budgets(k: GatewayKeyView): { text: string; share: number }[] {
  const l = k.limits;
  const s = k.spend;
  const out: { text: string; share: number }[] = [];
  if (l.requestsPerMinute)
    out.push({
      text: `${s.requestsThisMinute}/${l.requestsPerMinute} req/min`,
      share: s.requestsThisMinute / l.requestsPerMinute,
    });
  if (l.tokensPerDay)
    out.push({
      text: `${s.tokensToday}/${l.tokensPerDay} tokens today`,
      share: s.tokensToday / l.tokensPerDay,
    });
  if (l.usdPerDay)
    out.push({
      text: `${usd(s.usdToday)}/${usd(l.usdPerDay)} today`,
      share: s.usdToday / l.usdPerDay,
    });
  if (l.usdPerMonth)
    out.push({
      text: `${usd(s.usdThisMonth)}/${usd(l.usdPerMonth)} this month`,
      share: s.usdThisMonth / l.usdPerMonth,
    });
  return out;
}

/** Gateway keys with their spend against their budgets; create, rotate and revoke. */
export function KeysTable({ keys, reload }: { keys: GatewayKeyView[]; reload: () => void }) {
  const bridge = useDashboard((s) => s.bridge);
  const [name, setName] = useState('');
  const [secret, setSecret] = useState<CreatedGatewayKey | null>(null);
  const [error, setError] = useState<string | null>(null);

  const show = (r: { ok: true; data: CreatedGatewayKey } | { ok: false; error: string }) => {
    if (r.ok) {
      setSecret(r.data);
      setError(null);
    } else setError(r.error);
    reload();
  };
  const create = async (e: FormEvent) => {
    e.preventDefault();
    if (!bridge || !name.trim()) return;
    show(await bridge.createKey({ name: name.trim() }));
    setName('');
  };

  const csv = () =>
    downloadCsv(
      'breakwater-keys.csv',
      ['name', 'id', 'source', 'revoked', 'usd today', 'usd this month', 'tokens today'],
      keys.map((k) => [
        k.name,
        k.id,
        k.source,
        k.revokedAt ? new Date(k.revokedAt).toISOString() : '',
        k.spend.usdToday,
        k.spend.usdThisMonth,
        k.spend.tokensToday,
      ]),
    );

  return (
    <Card
      title="Gateway keys"
      testId="usage-keys"
      aside={
        <button type="button" onClick={csv}>
          CSV
        </button>
      }
    >
      {secret && (
        <p className="notice" role="status">
          Key "{secret.name}": <code>{secret.key}</code> <CopyButton text={secret.key} /> shown
          once, store it now.
        </p>
      )}
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {keys.length === 0 ? (
        <Empty>No gateway keys: only clients on this machine are served.</Empty>
      ) : (
        <table className="table">
          <TableHead columns={['Key', 'Prefix', 'Source', 'Budget']} actions />
          <tbody>
            {keys.map((k) => (
              <tr key={k.id} className={k.revokedAt ? 'muted' : ''}>
                <td>
                  {k.name}
                  {k.revokedAt && ' (revoked)'}
                </td>
                <td>
                  <code>{k.prefix || '-'}</code>
                </td>
                <td>{k.source}</td>
                <td>
                  {budgets(k).map((b) => (
                    <div
                      key={b.text}
                      className={b.share >= 1 ? 'over' : b.share >= 0.8 ? 'near' : ''}
                    >
                      <meter min={0} max={1} value={Math.min(1, b.share)} /> {b.text}
                    </div>
                  ))}
                  {budgets(k).length === 0 && `no limits; ${usd(k.spend.usdThisMonth)} this month`}
                </td>
                <td>
                  {!k.revokedAt && bridge && (
                    <>
                      <button
                        type="button"
                        onClick={async () => show(await bridge.rotateKey(k.id))}
                      >
                        Rotate
                      </button>{' '}
                      <button
                        type="button"
                        onClick={async () => {
                          const r = await bridge.revokeKey(k.id);
                          setError(r.ok ? null : r.error);
                          reload();
                        }}
                      >
                        Revoke
                      </button>
                    </>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form className="filters" onSubmit={create} aria-label="Create a gateway key">
        <label>
          New key name
          <input value={name} onChange={(e) => setName(e.target.value)} placeholder="ci" />
        </label>
        <button type="submit" disabled={!name.trim()}>
          Create key
        </button>
      </form>
    </Card>
  );
}
