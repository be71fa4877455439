/**
 * GET /__emulator/: a page to play a person by hand. The form sends what a
 * person does (POST /__emulator/events); the chat shows what the bot sent the
 * way a chat does (GET /__emulator/chat, HTML built and escaped on the server),
 * and a click on a rendered button taps it as a phone would (POST
 * /__emulator/tap). Results are set with textContent; a page a link opened is
 * shown in a sandboxed frame (no scripts, no forms), so nothing from a message
 * or a page runs here.
 */
import { escapeHtml } from './chatView';

export interface PageData {
	webhookUrl: string;
	users: Array<{ id: string; name: string }>;
	groups: Array<{ id: string; name: string }>;
}

const options = (list: Array<{ id: string; name: string }>) =>
	list.map((x) => `<option value="${escapeHtml(x.id)}">${escapeHtml(x.name)}</option>`).join('');

/** The chat's look: also used on its own by the screenshot and the tests' rendering. */
export const CHAT_CSS = `
.chat{list-style:none;margin:0;padding:0;display:flex;flex-direction:column;gap:.9rem}
.chat .empty{color:#777;font-style:italic}
.entry{display:flex;flex-direction:column;align-items:flex-start;max-width:100%}
.entry.person{align-items:flex-end}
.meta{font-size:12px;color:#6b7280;margin:0 .3rem .25rem}
.meta .route{color:#9ca3af}
.bubble{background:#fff;border-radius:18px 18px 18px 4px;padding:.55rem .85rem;max-width:26rem;white-space:pre-wrap;word-wrap:break-word;box-shadow:0 1px 1px rgba(0,0,0,.08);margin-bottom:.3rem}
.person .bubble{background:#2563eb;color:#fff;border-radius:18px 18px 4px 18px}
.person .bubble.tapped{background:#dbeafe;color:#1e3a8a}
.outcome{display:block;font-size:12px;opacity:.75}
.bubble img{display:block;max-width:16rem;max-height:14rem;border-radius:10px;background:#e5e7eb;min-width:6rem;min-height:4rem}
.bubble.video a{position:relative;display:block}.bubble.video .play{position:absolute;left:50%;top:50%;transform:translate(-50%,-50%);font-size:2rem;color:#fff;text-shadow:0 0 6px #000}
.bubble .size{color:#6b7280;font-size:12px}.bubble .caption{margin-top:.3rem}
.card{background:#fff;border-radius:14px;box-shadow:0 1px 2px rgba(0,0,0,.12);width:17rem;overflow:hidden;flex:0 0 auto;margin-bottom:.3rem}
.card .thumb{display:block;width:100%;aspect-ratio:1.51/1;object-fit:cover;background:#e5e7eb}.card .thumb.square{aspect-ratio:1/1}
.card .title{font-weight:600;padding:.6rem .85rem 0}
.card .text{padding:.35rem .85rem .6rem;white-space:pre-wrap;color:#374151}
.card .actions{display:flex;flex-direction:column;border-top:1px solid #e5e7eb}
.tap{font:inherit;cursor:pointer}
.card-button{background:none;border:0;border-bottom:1px solid #f3f4f6;padding:.6rem;color:#2563eb;font-weight:600}
.card-button:last-child{border-bottom:0}.card-button:hover{background:#eff6ff}
.carousel{display:flex;gap:.6rem;overflow-x:auto;max-width:100%;padding-bottom:.3rem}
.imagemap{position:relative;width:18rem;border-radius:12px;overflow:hidden;background:#e5e7eb;margin-bottom:.3rem}
.imagemap img{position:absolute;inset:0;width:100%;height:100%;object-fit:cover}
.imagemap .area{position:absolute;background:rgba(37,99,235,.12);border:1px dashed #2563eb;color:#1e3a8a;font-size:12px;padding:0}
.imagemap .area:hover{background:rgba(37,99,235,.3)}
.quick-replies{display:flex;flex-wrap:wrap;gap:.4rem;margin:.2rem 0 .3rem}
.chip{background:#fff;border:1px solid #2563eb;color:#2563eb;border-radius:999px;padding:.3rem .8rem}
.chip:hover{background:#eff6ff}
.link-mark{font-size:11px;opacity:.7}
.text-link{background:none;border:0;padding:0;color:#2563eb;text-decoration:underline;word-break:break-all;text-align:left}
`;

export function playPage(data: PageData): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Workplace emulator: play a person</title>
<style>
body{font:15px system-ui,sans-serif;margin:0;color:#1f2937;background:#f9fafb}
header{padding:1rem 1.5rem;border-bottom:1px solid #e5e7eb;background:#fff}header h1{margin:0;font-size:1.25rem}header p{margin:.3rem 0 0;color:#6b7280}
main{display:grid;grid-template-columns:minmax(18rem,24rem) 1fr;gap:1.5rem;padding:1.5rem;align-items:start}
aside{background:#fff;border:1px solid #e5e7eb;border-radius:12px;padding:1rem;position:sticky;top:1rem}
aside h2,section h2{font-size:1rem;margin:0 0 .6rem}
label{display:block;margin:.5rem 0;font-size:13px;color:#374151}input,select{font:inherit;padding:.35rem;width:100%;box-sizing:border-box;border:1px solid #d1d5db;border-radius:6px}
.send button{font:inherit;padding:.35rem .8rem;margin:.5rem .4rem 0 0;border:1px solid #d1d5db;border-radius:6px;background:#fff;cursor:pointer}
pre{background:#f3f4f6;padding:.6rem;overflow:auto;max-height:16rem;font-size:12px;border-radius:6px;white-space:pre-wrap}
iframe{width:100%;height:14rem;border:1px solid #e5e7eb;border-radius:6px;background:#fff}
.phone{background:#eef2f7;border:1px solid #e5e7eb;border-radius:16px;padding:1rem;min-height:20rem}
.hint{font-size:12px;color:#6b7280}
${CHAT_CSS}
</style></head><body>
<header><h1>Workplace emulator: play a person</h1>
<p>Events are signed with the bot client secret and posted to the webhook; a tap on a button below does what a tap on a phone does.</p></header>
<main>
<aside>
<form id="play" class="send" onsubmit="return false">
<h2>You are</h2>
<label>Person <select id="uid">${options(data.users)}</select></label>
<label>Chat <select id="gid"><option value="">Direct chat with the bot</option>${options(data.groups)}</select></label>
<label>Webhook URL <input id="url" name="url" value="${escapeHtml(data.webhookUrl)}" placeholder="http://localhost:5678/webhook/..."></label>
<label>Text (a message's text, or a postback's data) <input id="text" value="Hello"></label>
<button type="button" data-type="message">Send message</button>
<button type="button" data-type="postback">Tap postback</button>
<button type="button" data-type="join">Join</button>
<label><input type="checkbox" id="only" style="width:auto"> Show only the chosen chat</label>
</form>
<h2>Last delivery or tap</h2><pre id="result">Nothing sent yet.</pre>
<div id="opened" hidden><h2>The page the link opened</h2><iframe id="frame" sandbox="" title="The page the link opened"></iframe></div>
<p class="hint">Taps in a group are made as the person chosen above; in a direct chat, as that chat's person. <a href="./messages">Records as JSON</a></p>
</aside>
<section><h2>What the bot sent</h2><div class="phone" id="chat"></div></section>
</main>
<script>
const $ = (id) => document.getElementById(id);
function show(result) {
  $('result').textContent = JSON.stringify(result, null, 2);
  const page = result.submitted ?? result.opened;
  $('opened').hidden = !page;
  if (page) $('frame').srcdoc = page.body;
}
async function send(path, body) {
  $('result').textContent = 'Sending…';
  try {
    const res = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    show(await res.json());
  } catch (err) { $('result').textContent = String(err); }
  refresh();
}
function play(type) {
  const body = { url: $('url').value, type, uid: $('uid').value };
  if ($('gid').value && type !== 'join') body.gid = $('gid').value;
  if (type === 'message') body.text = $('text').value;
  if (type === 'postback') body.data = $('text').value;
  return send('./events', body);
}
document.querySelectorAll('button[data-type]').forEach((b) => b.addEventListener('click', () => play(b.dataset.type)));
$('chat').addEventListener('click', (e) => {
  const b = e.target.closest('button.tap');
  if (!b) return;
  const entry = b.closest('.entry');
  const body = { seq: Number(b.dataset.seq), button: b.dataset.button, uid: entry.dataset.uid ?? $('uid').value };
  if ($('url').value) body.url = $('url').value;
  send('./tap', body);
});
let shown = '';
async function refresh() {
  const q = new URLSearchParams();
  if ($('only').checked) { if ($('gid').value) q.set('gid', $('gid').value); else q.set('uid', $('uid').value); }
  const html = await (await fetch('./chat?' + q)).text();
  // The server escaped every value; replace only when something changed, so a click is not lost.
  if (html !== shown) { shown = html; $('chat').innerHTML = html; }
}
for (const id of ['only', 'gid', 'uid']) $(id).addEventListener('change', refresh);
refresh(); setInterval(refresh, 2000);
</script></body></html>
`;
}
