/**
 * The status page's style and its one small script, inline: the page loads nothing else, so it
 * works on a server without internet. The script does three things the server cannot: shows
 * times in the viewer's local time, sends the action buttons with the CSRF token (one action at
 * a time: the buttons are disabled until the answer) and shows the answer, and refreshes the
 * page every 10 s unless the viewer is typing or acting.
 */
import { CSRF_FIELD, CSRF_HEADER } from './csrf.js';

export const REFRESH_SECONDS = 10;

export const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:1.5rem;color:#222}
h1{font-size:1.4rem;margin-bottom:.2rem}h2{font-size:1.15rem;margin-top:1.8rem}h3{font-size:1rem}
table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f3f3f3}table+table{margin-top:.6rem}.ok{color:#176c2c}.bad{color:#b00020}.none{color:#777}
#about{color:#555;margin-top:0}#notice{min-height:1.4em;font-weight:600}
form.act{display:inline;margin:0}button{white-space:nowrap}.acts form.act{margin-right:.3rem}
#entity-search{margin:.5rem 0}#entity-search label{margin-right:.6rem}
.pager{margin:.5rem 0}.pager>*{margin-right:.8rem}
.charts{display:flex;flex-wrap:wrap;gap:1.5rem}figure.chart{margin:0}
.legend .key{margin-right:1rem}.swatch{display:inline-block;width:1.2rem;border-top-width:3px;margin-right:.3rem;vertical-align:middle}
.change.pulled{color:#1f5fbf}.change.pushed{color:#176c2c}.change.conflict,.change.deleted-in-service,.change.deleted-locally,.change.trashed-locally{color:#b00020}`;

export const SCRIPT = `(() => {
  const local = () => {
    for (const t of document.querySelectorAll('time[datetime]')) {
      const d = new Date(t.getAttribute('datetime'));
      t.title = t.textContent;
      t.textContent = d.toLocaleString();
    }
  };
  const notice = document.getElementById('notice');
  const shown = sessionStorage.getItem('docsync-notice');
  if (shown) { notice.textContent = shown; sessionStorage.removeItem('docsync-notice'); }
  let acting = false;
  const buttons = (disabled) => {
    for (const b of document.querySelectorAll('form.act button')) b.disabled = disabled;
  };
  document.addEventListener('submit', async (event) => {
    const form = event.target;
    if (!form.classList.contains('act')) return;
    event.preventDefault();
    // One action at a time: a double click must not resolve a conflict twice.
    if (acting) return;
    acting = true;
    const body = new URLSearchParams(new FormData(form));
    buttons(true);
    notice.textContent = 'Sending…';
    try {
      const answer = await fetch(form.action, {
        method: 'POST', body,
        headers: { ${JSON.stringify(CSRF_HEADER)}: body.get(${JSON.stringify(CSRF_FIELD)}), accept: 'application/json' },
      });
      const result = await answer.json();
      sessionStorage.setItem('docsync-notice', result.message);
      location.reload();
    } catch (error) {
      notice.textContent = 'The daemon did not answer: ' + error;
      acting = false;
      buttons(false);
    }
  });
  setInterval(() => {
    const typing = document.activeElement && document.activeElement.matches('input, select');
    if (!acting && !typing) location.reload();
  }, ${REFRESH_SECONDS * 1000});
  local();
})();`;
