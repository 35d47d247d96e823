import { ActionButton, ListCard, TableHead } from '../../components/ui';
import { useDashboard } from '../../state/store';

/** Request-shape fixes learnt from providers' 400s (issue 17), as the last snapshot has them. */
export function LearnedFixes() {
  const snapshot = useDashboard((s) => s.snapshot);
  const bridge = useDashboard((s) => s.bridge);
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
        <TableHead
          columns={['Model', 'Fix', 'Mechanism', 'Because the provider said', 'Learnt']}
          actions={bridge !== null}
        />
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
              {bridge && (
                <td>
                  <ActionButton
                    run={() => bridge.clearLearnedFixes({ provider: f.provider, model: f.model })}
                    done={`Fixes of ${f.provider}/${f.model} forgotten`}
                    testId={`forget-${f.provider}/${f.model}`}
                  >
                    Forget this model's
                  </ActionButton>
                </td>
              )}
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">
        After a provider changes what it accepts, forget its fixes: the next refusal teaches them
        again.{' '}
        {bridge && (
          <ActionButton
            run={() => bridge.clearLearnedFixes()}
            done="Every learnt fix forgotten"
            tone="danger"
            confirm="Forget every learnt request fix?"
            testId="forget-all-fixes"
          >
            Forget all
          </ActionButton>
        )}
      </p>
    </ListCard>
  );
}
