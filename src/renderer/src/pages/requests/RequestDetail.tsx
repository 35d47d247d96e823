import type { RequestLogEntry } from '../../../../shared/contract';

/** The opened row's second line: how the request was routed and what it cost. */
export function RequestDetail({ entry: r }: { entry: RequestLogEntry }) {
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
      </td>
    </tr>
  );
}
