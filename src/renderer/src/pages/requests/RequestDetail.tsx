import { useEffect, useState } from 'react';
import type { RequestLogDetail, RequestLogEntry } from '../../../../shared/contract';
import { useDashboard } from '../../state/store';
import { AttemptView } from './AttemptView';
import { ReplayControls } from './ReplayControls';

/** The captured call of a row, read when the row is opened. */
function useDetail(id: number): RequestLogDetail | null {
  const bridge = useDashboard((s) => s.bridge);
  const [detail, setDetail] = useState<RequestLogDetail | null>(null);
  useEffect(() => {
    if (!bridge) return;
    let alive = true;
    void bridge.getLogDetail(id).then((r) => alive && r.ok && setDetail(r.data));
    return () => {
      alive = false;
    };
  }, [bridge, id]);
  return detail;
}

/** The opened row's second line: how the request was routed, and what its attempts sent and got. */
export function RequestDetail({ entry: r }: { entry: RequestLogEntry }) {
  const detail = useDetail(r.id);
  return (
    <tr className="detail">
      <td colSpan={6}>
        <dl className="kv">
          <dt>Routing decision</dt>
          <dd>{r.decision ?? 'none recorded'}</dd>
          {r.errorClass && (
            <>
              <dt>Error</dt>
              <dd>
                <code>{r.errorClass}</code> {r.errorMessage}
              </dd>
            </>
          )}
          <dt>Client format</dt>
          <dd>{r.clientFormat}</dd>
          <dt>Time to first byte</dt>
          <dd>{r.ttfbMs === null ? '–' : `${r.ttfbMs} ms`}</dd>
          <dt>Bytes in/out</dt>
          <dd>
            {r.bytesIn} / {r.bytesOut}
          </dd>
          {r.egressIp && (
            <>
              <dt>Egress IP</dt>
              <dd>{r.egressIp}</dd>
            </>
          )}
        </dl>
        {detail && detail.attempts.length > 0 && (
          <div className="attempts">
            {detail.attempts.map((a, i) => (
              <AttemptView key={`${a.connection}-${a.startedAt}`} attempt={a} index={i} />
            ))}
          </div>
        )}
        {detail && detail.attempts.length === 0 && (
          <p className="muted small">
            No bodies kept for this request (see the setting requestLog.captureBodies).
          </p>
        )}
        {detail && <ReplayControls detail={detail} />}
      </td>
    </tr>
  );
}
