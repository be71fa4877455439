/**
 * GET /__emulator/: a small page to play a user by hand. Its buttons call
 * POST /__emulator/events and it lists what the bot sent (GET /__emulator/messages).
 * Everything it shows is set with textContent, so nothing from a message runs.
 */
export interface PageData {
	webhookUrl: string;
	users: Array<{ id: string; name: string }>;
	groups: Array<{ id: string; name: string }>;
}

const escapeHtml = (s: string) =>
	s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

const options = (list: Array<{ id: string; name: string }>) =>
	list.map((x) => `<option value="${escapeHtml(x.id)}">${escapeHtml(x.name)}</option>`).join('');

export function playPage(data: PageData): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Workplace emulator: play a user</title>
<style>
body{font:15px system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222}
label{display:block;margin:.5rem 0}input,select{font:inherit;padding:.3rem;width:100%;box-sizing:border-box}
button{font:inherit;padding:.4rem 1rem;margin:.5rem .5rem 0 0}pre{background:#f4f4f4;padding:.6rem;overflow:auto;max-height:22rem}
td,th{border-bottom:1px solid #ddd;padding:.3rem;text-align:left;vertical-align:top}table{border-collapse:collapse;width:100%}
</style></head><body>
<h1>Play a user</h1>
<p>The emulator builds the event the service would send, signs it with the bot client secret and posts it to the webhook.</p>
<form id="play">
<label>Webhook URL <input id="url" name="url" value="${escapeHtml(data.webhookUrl)}" placeholder="http://localhost:5678/webhook/..."></label>
<label>User <select id="uid">${options(data.users)}</select></label>
<label>Chat <select id="gid"><option value="">Direct chat with the bot</option>${options(data.groups)}</select></label>
<label>Text (a message's text, or a postback's data) <input id="text" value="Hello"></label>
<button type="button" data-type="message">Send message</button>
<button type="button" data-type="postback">Tap postback</button>
<button type="button" data-type="join">Join</button>
</form>
<h2>Delivery</h2><pre id="result">Nothing sent yet.</pre>
<h2>What the bot sent</h2><table><thead><tr><th>#</th><th>Time</th><th>Route</th><th>To</th><th>Content</th></tr></thead><tbody id="records"></tbody></table>
<script>
const $ = (id) => document.getElementById(id);
async function play(type) {
  const body = { url: $('url').value, type, uid: $('uid').value };
  if ($('gid').value && type !== 'join') body.gid = $('gid').value;
  if (type === 'message') body.text = $('text').value;
  if (type === 'postback') body.data = $('text').value;
  $('result').textContent = 'Sending…';
  const res = await fetch('./events', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  $('result').textContent = JSON.stringify(await res.json(), null, 2);
  setTimeout(refresh, 500);
}
document.querySelectorAll('button[data-type]').forEach((b) => b.addEventListener('click', () => play(b.dataset.type)));
async function refresh() {
  const { messages } = await (await fetch('./messages')).json();
  const rows = messages.slice().reverse().map((m) => {
    const tr = document.createElement('tr');
    const to = m.target.uid ? 'user ' + m.target.uid : 'group ' + m.target.gid + (m.target.tid ? ' topic ' + m.target.tid : '');
    const content = m.text ?? (m.file ? m.file.filename + ' (' + m.file.size + ' bytes)' : JSON.stringify(m.messages ?? m.meta));
    for (const v of [m.seq, m.time, m.route, to + (m.target.replyToken ? ' (reply)' : ''), content]) {
      const td = document.createElement('td'); td.textContent = String(v); tr.appendChild(td);
    }
    return tr;
  });
  $('records').replaceChildren(...rows);
}
refresh(); setInterval(refresh, 3000);
</script></body></html>
`;
}
