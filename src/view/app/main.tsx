// The evalkit view app: a hash router over the pages. Every view's state is in the URL (see route.ts).
import { render } from 'preact';
import './bidi.js';
import { staticMode } from './api.js';
import { href, useRoute } from './route.js';
import { ComparePage } from './pages/compare.js';
import { CostPage } from './pages/cost.js';
import { InferevalPage } from './pages/infereval.js';
import { LeaderboardPage } from './pages/leaderboard.js';
import { ModelPage } from './pages/model.js';
import { OverviewPage } from './pages/overview.js';
import { RecordPage } from './pages/record.js';
import { RetrievalPage } from './pages/retrieval.js';
import { SamplePage } from './pages/sample.js';
import { SamplesPage } from './pages/samples.js';

const NAV: [string, string][] = [
  ['overview', 'Overview'],
  ['leaderboard', 'Leaderboard'],
  ['compare', 'Compare'],
  ['cost', 'Cost'],
  ['infereval', 'infereval'],
  ['retrieval', 'Retrieval'],
];

function App() {
  const route = useRoute();
  const page = (() => {
    switch (route.page) {
      case 'overview':
        return <OverviewPage />;
      case 'leaderboard':
        return <LeaderboardPage route={route} />;
      case 'model':
        return <ModelPage route={route} />;
      case 'record':
        return <RecordPage route={route} />;
      case 'samples':
        return <SamplesPage route={route} />;
      case 'sample':
        return <SamplePage route={route} />;
      case 'compare':
        return <ComparePage route={route} />;
      case 'cost':
        return <CostPage route={route} />;
      case 'infereval':
        return <InferevalPage route={route} />;
      case 'retrieval':
        return <RetrievalPage route={route} />;
      default:
        return <p class="error">No page {route.page}.</p>;
    }
  })();
  return (
    <>
      <header class="top">
        <a class="brand" href={href('overview')}>
          evalkit view
        </a>
        <nav>
          {NAV.map(([name, label]) => (
            <a
              href={href(name)}
              class={route.page === name ? 'active' : ''}
              aria-current={route.page === name ? 'page' : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
        {staticMode ? <span class="badge">static export</span> : null}
      </header>
      <main key={route.page}>{page}</main>
    </>
  );
}

/**
 * A static export opened as a file (file://…/index.html): the browser lets such a page read no file beside it,
 * so the data cannot load. Say how to serve the folder instead of showing empty pages.
 */
function OpenedAsFile() {
  const folder = decodeURIComponent(location.pathname.replace(/\/[^/]*$/, '/'));
  return (
    <main class="opened-as-file">
      <h1>evalkit view: serve this folder to open it</h1>
      <p class="error" role="alert">
        This static export was opened as a file, and a browser lets a page opened from a file read no other
        file, so its data cannot load. Serve the folder over HTTP and open it from there:
      </p>
      <pre class="mono">
        python3 -m http.server 8000 --bind 127.0.0.1 --directory '{folder.replace(/'/g, "'\\''")}'
      </pre>
      <p>
        then open <span class="mono">http://127.0.0.1:8000/</span>. Or view the store itself with{' '}
        <span class="mono">npx evalkit view --db STORE</span>.
      </p>
    </main>
  );
}

render(
  staticMode && location.protocol === 'file:' ? <OpenedAsFile /> : <App />,
  document.getElementById('app')!,
);
