// React Fast Refresh preamble as a module: the CSP blocks the inline copy Vite injects in dev.
// In a production build this import is empty.
import '@vitejs/plugin-react/preamble';
import './styles.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App';

const root = document.getElementById('root');
if (!root) throw new Error('index.html has no #root element');

createRoot(root).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
