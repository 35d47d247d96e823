// React Fast Refresh preamble as a module: the CSP blocks the inline copy Vite injects in dev.
// In a production build this import is empty.
import '@vitejs/plugin-react/preamble';
import './styles/index.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';
import { desktopBridge } from './bridge/desktop';
import { createHttpBridge } from './bridge/http';
import { takeToken } from './bridge/token';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

// Desktop: the preload's IPC bridge. Browser (`/ui` of the headless server): the admin API.
// The token is taken from the fragment before anything renders, so it leaves the address bar at once.
const desktop = window.breakwater;
const bridge = desktop ? desktopBridge(desktop) : createHttpBridge('');
const hasToken = desktop ? true : takeToken() !== null;
if (!desktop) {
  // A sign-in link opened in a tab that already shows the dashboard only changes the fragment:
  // take the token, strip it, and start over with it.
  window.addEventListener('hashchange', () => {
    if (window.location.hash.startsWith('#token=') && takeToken()) window.location.reload();
  });
}

createRoot(root).render(
  <StrictMode>
    <App bridge={bridge} hasToken={hasToken} />
  </StrictMode>,
);
