// Every text the app renders (table cells, titles, JSON, transcripts) shows bidirectional controls from records as
// visible escapes (see shared/bidi.ts): a Preact hook on text nodes, so no page can forget it. Each cell's text is
// also isolated from its neighbours by style.css (unicode-bidi: isolate).
import { options, type VNode } from 'preact';
import { showBidiControls } from '../shared/bidi.js';

const next = options.vnode;
options.vnode = (vnode: VNode) => {
  const text = vnode as unknown as { type: unknown; props: unknown };
  if (text.type === null && typeof text.props === 'string') text.props = showBidiControls(text.props);
  next?.(vnode);
};
