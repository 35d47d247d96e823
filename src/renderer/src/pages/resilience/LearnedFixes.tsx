import { ListCard, TableHead } from '../../components/ui';
import { useDashboard } from '../../state/store';

/** Request-shape fixes learnt from providers' 400s (issue 17), as the last snapshot has them. */
export function LearnedFixes() {
  const snapshot = useDashboard((s) => s.snapshot);
  if (!snapshot) return null;
  const rows = snapshot.learnedFixes ?? [];
  return (
    <ListCard
      title="Learnt request fixes"
      testId="learned-fixes"
      items={rows}
      empty="No provider has refused a request's shape yet."
    >
      <table className="table">
        <TableHead columns={['Model', 'Fix', 'Mechanism', 'Because the provider said', 'Learnt']} />
        <tbody>
          {rows.map((f) => (
            <tr key={`${f.provider}:${f.model}:${f.param}`}>
              <td>
                <span className="muted">{f.provider}/</span>
                {f.model}
              </td>
              <td>{f.fix}</td>
              <td>{f.mechanism}</td>
              <td className="muted">{f.cause}</td>
              <td className="num">{new Date(f.learnedAt).toLocaleString()}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        Clear them with <code>DELETE /api/resilience/learned-fixes</code> (optionally{' '}
        <code>?provider=…&amp;model=…</code>) after a provider changes what it accepts.
      </p>
    </ListCard>
  );
}
