import type { BridgeApi, BridgeResult } from '../../../shared/contract';
import type { StartupError } from '../../../shared/ipc';

/** The live link to the engine: desktop IPC is always `live`; the browser's SSE may drop. */
export type LinkState = 'connecting' | 'live' | 'reconnecting' | 'unauthorized';

/** What the dashboard runs on: BridgeApi plus host-specific extras that may be absent. */
export type DashboardBridge = BridgeApi & {
  readonly host: 'desktop' | 'browser';
  getStartupError?(): Promise<BridgeResult<StartupError | null>>;
  onLinkChange?(listener: (state: LinkState) => void): () => void;
  /** Desktop: the shell asks the page to show another view (a notification was clicked). */
  onNavigate?(listener: (page: string) => void): () => void;
  /** Browser: forgets the token (sign out). */
  signOut?(): void;
};
