import { RateChart } from '../../components/RateChart';
import { Card } from '../../components/ui';
import { useDashboard } from '../../state/store';
import { Endpoints } from './Endpoints';
import { Incidents } from './Incidents';
import { StatusCard } from './StatusCard';

export function Overview() {
  const snapshot = useDashboard((s) => s.snapshot);
  const g = snapshot?.gateway;
  return (
    <>
      <StatusCard />
      {g && (
        <div className="counts">
          <div className="count">
            <div className="count-value">{g.requestsTotal}</div>
            <div className="count-label">Requests since start</div>
          </div>
          <div className="count">
            <div className="count-value">{g.errorsTotal}</div>
            <div className="count-label">Failed</div>
          </div>
          <div className="count">
            <div className="count-value">{g.inFlight}</div>
            <div className="count-label">In flight</div>
          </div>
        </div>
      )}
      <Card title="Requests and errors">
        <RateChart />
      </Card>
      <Incidents />
      {g && <Endpoints base={g.baseUrl} />}
    </>
  );
}
