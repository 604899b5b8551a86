// The evalkit view app: a hash router over the pages. Every view's state is in the URL (see route.ts).
import { render } from 'preact';
import './bidi.js';
import { staticMode } from './api.js';
import { href, useRoute } from './route.js';
import { ComparePage } from './pages/compare.js';
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

render(<App />, document.getElementById('app')!);
