/**
 * The viewer's page: a list of episodes (reward, end, turns) and one episode as a conversation,
 * its observations and its test report. Everything recorded is shown as text (textContent), never
 * as markup: observations are whatever the agent's commands printed.
 */
export function viewerPage(embedded: { rows: unknown[]; episodes: Record<string, unknown> } | undefined): string {
  // "<" escaped so that no recorded text can close the script element.
  const data = embedded ? JSON.stringify(embedded).replace(/</g, '\\u003c') : 'null';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>swe-env trajectories</title>
<style>
  body { font: 14px/1.4 system-ui, sans-serif; margin: 0; display: flex; height: 100vh; color: #1d1d1f; }
  #list { width: 42%; min-width: 34em; overflow: auto; border-right: 1px solid #ddd; }
  #detail { flex: 1; overflow: auto; padding: 0 16px 32px; }
  table { border-collapse: collapse; width: 100%; table-layout: fixed; }
  th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #eee; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
  col.c-id { width: 28%; } col.c-task { width: 28%; } col.c-reward { width: 5.5em; } col.c-end { width: 15%; } col.c-turns { width: 4.5em; } col.c-when { width: 6.5em; }
  tr.episode { cursor: pointer; }
  tr.episode:hover, tr.selected { background: #eef4ff; }
  .resolved { color: #127a2c; font-weight: 600; }
  .unresolved { color: #a11; }
  .msg { border: 1px solid #ddd; border-radius: 6px; margin: 10px 0; padding: 8px 10px; }
  .msg h4 { margin: 0 0 6px; font-size: 12px; text-transform: uppercase; color: #666; }
  .user { background: #f7f7f9; } .assistant { background: #f3f8ff; } .tool { background: #fbfbf3; } .end { background: #f1fbf3; }
  pre { white-space: pre-wrap; word-break: break-word; margin: 4px 0; font: 12px/1.35 ui-monospace, monospace; max-height: 32em; overflow: auto; }
  #filter { margin: 8px; width: calc(100% - 16px); padding: 4px; box-sizing: border-box; }
  .meta { color: #666; font-size: 12px; }
</style>
</head>
<body>
<div id="list"><input id="filter" placeholder="filter by task, episode, end"><table><colgroup><col class="c-id"><col class="c-task"><col class="c-reward"><col class="c-end"><col class="c-turns"><col class="c-when"></colgroup><thead><tr><th>episode</th><th>task</th><th>reward</th><th>end</th><th>turns</th><th>started</th></tr></thead><tbody id="rows"></tbody></table></div>
<div id="detail"><p class="meta">Choose an episode.</p></div>
<script>
const EMBEDDED = ${data};
const el = (tag, attrs, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  for (const c of children) if (c !== null && c !== undefined) node.append(typeof c === 'string' ? document.createTextNode(c) : c);
  return node;
};
async function rows() { return EMBEDDED ? EMBEDDED.rows : (await fetch('api/episodes')).json(); }
async function episode(id) { return EMBEDDED ? EMBEDDED.episodes[id] : (await fetch('api/episodes/' + encodeURIComponent(id))).json(); }
function rewardCell(r) {
  if (r.reward === null) return el('td', {}, '-');
  return el('td', { class: r.resolved ? 'resolved' : 'unresolved' }, String(r.reward));
}
async function showList() {
  const all = await rows();
  const body = document.getElementById('rows');
  const render = () => {
    const q = document.getElementById('filter').value.toLowerCase();
    body.replaceChildren(...all.filter((r) => !q || [r.episode_id, r.task_id, r.end_reason, r.dataset].join(' ').toLowerCase().includes(q)).map((r) => {
      const when = r.started_at.replace('T', ' ').slice(0, 19);
      // Long ids are cut to the column with an ellipsis; the whole text is the cell's tooltip.
      const tr = el('tr', { class: 'episode', 'data-episode': r.episode_id },
        el('td', { title: r.episode_id }, r.episode_id), el('td', { title: r.task_id }, r.task_id), rewardCell(r), el('td', { title: r.end_reason }, r.end_reason), el('td', {}, String(r.turns)), el('td', { title: when }, when.slice(11)));
      tr.addEventListener('click', () => { location.hash = 'episode=' + encodeURIComponent(r.episode_id); });
      return tr;
    }));
    select();
  };
  document.getElementById('filter').addEventListener('input', render);
  // The address names the episode shown (#episode=ID): a link to one episode opens it.
  window.addEventListener('hashchange', select);
  render();
}
function select() {
  const m = /^#episode=(.+)$/.exec(location.hash);
  if (!m) return;
  const id = decodeURIComponent(m[1]);
  for (const s of document.querySelectorAll('tr.selected')) s.classList.remove('selected');
  for (const tr of document.querySelectorAll('tr.episode')) if (tr.dataset.episode === id) tr.classList.add('selected');
  if (shown !== id) void showEpisode(id);
}
function testList(title, tests) {
  if (!tests || tests.length === 0) return null;
  return el('div', {}, el('strong', {}, title), el('pre', {}, tests.map((t) => t.status + '  ' + t.name).join('\\n')));
}
let shown = null;
async function showEpisode(id) {
  shown = id;
  const t = await episode(id);
  // A later click wins: an answer that arrives after it is dropped, not drawn over it.
  if (shown !== id) return;
  const d = document.getElementById('detail');
  const h = t.header;
  const parts = [
    el('h2', {}, h.task_id),
    el('p', { class: 'meta' }, el('a', { href: '#episode=' + encodeURIComponent(h.episode_id), id: 'permalink' }, 'episode ' + h.episode_id), ' · dataset ' + h.dataset + ' · group ' + (h.group_id || '-') + ' · server ' + h.server_id + ' · started ' + h.started_at),
  ];
  if (h.system_prompt) parts.push(el('div', { class: 'msg user' }, el('h4', {}, 'system'), el('pre', {}, h.system_prompt)));
  parts.push(el('div', { class: 'msg user' }, el('h4', {}, 'task'), el('pre', {}, h.prompt)));
  for (const s of t.steps) {
    const a = s.assistant;
    const call = s.tool === 'bash' && s.arguments && typeof s.arguments === 'object' ? s.arguments.command : JSON.stringify(s.arguments);
    parts.push(el('div', { class: 'msg assistant', 'data-step': String(s.index) },
      el('h4', {}, 'assistant · step ' + s.index + (a && a.model ? ' · ' + a.model : '')),
      a && a.reasoning ? el('details', {}, el('summary', {}, 'reasoning'), el('pre', {}, a.reasoning)) : null,
      a && a.content ? el('pre', {}, a.content) : null,
      el('div', {}, el('strong', {}, s.tool + ': '), el('pre', { class: 'call' }, String(call ?? '')))));
    parts.push(el('div', { class: 'msg tool' },
      // Only a command has an exit code; a submit's outcome is below.
      el('h4', {}, 'observation · ' + s.status + (s.tool === 'bash' ? ' · exit ' + s.exit_code : '') + ' · ' + s.duration_s.toFixed(2) + ' s'),
      el('pre', { class: 'observation' }, s.observation)));
  }
  if (t.end) {
    const r = t.end.report;
    parts.push(el('div', { class: 'msg end', id: 'outcome' },
      el('h4', {}, 'outcome'),
      el('p', { class: t.end.resolved ? 'resolved' : 'unresolved' }, 'reward ' + t.end.reward + ' · ' + (t.end.resolved ? 'resolved' : 'not resolved') + ' · ended: ' + t.end.end_reason + ' · ' + t.end.steps + ' steps · ' + t.end.duration_s.toFixed(1) + ' s'),
      r ? testList('FAIL_TO_PASS', r.failToPass) : null,
      r ? testList('PASS_TO_PASS', r.passToPass) : null,
      r && r.error ? el('pre', {}, r.error) : null,
      t.end.model_patch ? el('details', {}, el('summary', {}, 'captured change'), el('pre', {}, t.end.model_patch)) : null));
  } else {
    parts.push(el('p', { class: 'meta' }, 'still running (no end recorded yet)'));
  }
  d.replaceChildren(...parts);
}
void showList();
</script>
</body>
</html>
`;
}
