import { useState } from 'react';
import { RateChart } from '../components/RateChart';
import { ActionButton, Badge, Card, CopyButton, Countdown, Empty } from '../components/ui';
import { formatTime } from '../hooks';
import { incidents } from '../state/model';
import { useDashboard } from '../state/store';

const SETUPS = ['Claude Code', 'Codex CLI', 'OpenAI SDK', 'Anthropic SDK'] as const;
type Setup = (typeof SETUPS)[number];

function setupText(setup: Setup, base: string): string {
  switch (setup) {
    case 'Claude Code':
      return `export ANTHROPIC_BASE_URL=${base}\nexport ANTHROPIC_AUTH_TOKEN=breakwater   # any value; a gateway key if you configured them\nclaude`;
    case 'Codex CLI':
      return `# ~/.codex/config.toml\nmodel_provider = "breakwater"\n\n[model_providers.breakwater]\nname = "Breakwater"\nbase_url = "${base}/v1"\nwire_api = "responses"`;
    case 'OpenAI SDK':
      return `from openai import OpenAI\nclient = OpenAI(base_url="${base}/v1", api_key="breakwater")`;
    case 'Anthropic SDK':
      return `import Anthropic from '@anthropic-ai/sdk';\nconst client = new Anthropic({ baseURL: '${base}', apiKey: 'breakwater' });`;
  }
}

function StatusCard() {
  const snapshot = useDashboard((s) => s.snapshot);
  const startup = useDashboard((s) => s.startup);
  const bridge = useDashboard((s) => s.bridge);
  let tone: 'ok' | 'warn' | 'bad' | 'idle' = 'idle';
  let title = 'Starting';
  let detail = 'The gateway is starting…';
  if (startup.settled && startup.error) {
    tone = 'bad';
    title = 'Not serving';
    detail = startup.error.message;
  } else if (snapshot?.gateway.paused) {
    tone = 'warn';
    title = 'Paused';
    detail = 'Agents get 503 gateway_paused until you resume. The dashboard keeps working.';
  } else if (snapshot) {
    tone = 'ok';
    title = 'Running';
    detail = `Forwarding requests · up since ${formatTime(snapshot.gateway.startedAt)}`;
  }
  return (
    <section className={`status status-${tone}`} aria-live="polite" data-testid="status">
      <span className="dot" aria-hidden="true" />
      <div className="status-body">
        <h2>{title}</h2>
        <p>{detail}</p>
      </div>
      {snapshot && bridge && !(startup.settled && startup.error) && (
        <div className="status-actions">
          {snapshot.gateway.paused ? (
            <ActionButton run={() => bridge.resume()} done="Resumed" tone="primary">
              Resume
            </ActionButton>
          ) : (
            <ActionButton run={() => bridge.pause()} done="Paused: agents get 503">
              Pause
            </ActionButton>
          )}
        </div>
      )}
    </section>
  );
}

function Endpoints({ base }: { base: string }) {
  const [setup, setSetup] = useState<Setup>('Claude Code');
  const text = setupText(setup, base);
  return (
    <Card title="Point your agents here">
      <dl className="endpoints">
        <dt>Anthropic format</dt>
        <dd>
          <code>{base}</code> <CopyButton text={base} />
        </dd>
        <dt>OpenAI format</dt>
        <dd>
          <code>{`${base}/v1`}</code> <CopyButton text={`${base}/v1`} />
        </dd>
      </dl>
      <div className="tabs" role="tablist" aria-label="Setup for">
        {SETUPS.map((s) => (
          <button
            key={s}
            type="button"
            role="tab"
            aria-selected={s === setup}
            className={`tab ${s === setup ? 'tab-on' : ''}`}
            onClick={() => setSetup(s)}
          >
            {s}
          </button>
        ))}
      </div>
      <div className="snippet" role="tabpanel" aria-label={setup}>
        <pre>{text}</pre>
        <CopyButton text={text} />
      </div>
    </Card>
  );
}

function Incidents() {
  const snapshot = useDashboard((s) => s.snapshot);
  const setPage = useDashboard((s) => s.setPage);
  const list = snapshot ? incidents(snapshot) : [];
  return (
    <Card
      title="Current incidents"
      aside={
        list.length > 0 && (
          <Badge tone={list[0]?.level === 'bad' ? 'bad' : 'warn'}>{list.length}</Badge>
        )
      }
      testId="incidents"
    >
      {list.length === 0 ? (
        <Empty>
          Nothing is wrong right now: every circuit is closed and no connection is cooling.
        </Empty>
      ) : (
        <ul className="incidents">
          {list.map((i) => (
            <li key={i.key} className={`incident incident-${i.level}`}>
              <span className="dot" aria-hidden="true" />
              <div>
                <strong>{i.title}</strong>
                <p className="muted small">{i.detail}</p>
              </div>
              <Countdown until={i.until} prefix="clears in " />
            </li>
          ))}
        </ul>
      )}
      {list.length > 0 && (
        <button type="button" className="btn btn-link" onClick={() => setPage('resilience')}>
          Open the resilience page
        </button>
      )}
    </Card>
  );
}

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
