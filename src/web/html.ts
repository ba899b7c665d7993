/**
 * Small HTML building blocks for the status page. Everything that comes from the state database
 * (names, paths, error texts) is escaped here, once, so a document called `<script>` shows as
 * text. No templates, no external assets: the page must work on a server without internet.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CSRF_FIELD } from './csrf.js';

/** A piece of HTML that is already safe to insert. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Content = Html | string | number | null | undefined;

export function escapeHtml(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

function render(content: Content): string {
  if (content instanceof Html) return content.text;
  if (content === null || content === undefined) return '';
  return escapeHtml(String(content));
}

/** Tagged template: interpolated values are escaped unless they are `Html`. */
export function html(strings: TemplateStringsArray, ...values: (Content | Content[])[]): Html {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += Array.isArray(value) ? value.map(render).join('') : render(value);
    out += strings[i + 1] ?? '';
  });
  return new Html(out);
}

export function table(headers: readonly string[], rows: readonly Content[][]): Html {
  if (rows.length === 0) return html`<p class="none">None.</p>`;
  const head = headers.map((h) => html`<th>${h}</th>`);
  const body = rows.map((row) => html`<tr>${row.map((cell) => html`<td>${cell}</td>`)}</tr>`);
  return html`<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

/** Label and value pairs as a two-column table without a header. */
export function facts(rows: readonly [string, Content][]): Html {
  const body = rows.map(([label, value]) => html`<tr><th>${label}</th><td>${value}</td></tr>`);
  return html`<table><tbody>${body}</tbody></table>`;
}

/** A `file://` link to `relative` under the store root, shown as the relative path. */
export function fileLink(root: string, relative: string): Html {
  const href = pathToFileURL(path.join(root, relative)).href;
  return html`<a href="${href}">${relative}</a>`;
}

export function formatAge(ms: number | null): string {
  if (ms === null) return 'never';
  if (ms < 120_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 7_200_000) return `${Math.round(ms / 60_000)} min`;
  return `${Math.round(ms / 3_600_000)} h`;
}

/**
 * A moment, as UTC text that the page's script turns into the viewer's local time (the server
 * cannot know the viewer's zone); `datetime` keeps the exact instant for it.
 */
export function timeOf(ms: number | null): Html {
  if (ms === null) return html`<span class="none">never</span>`;
  const iso = new Date(ms).toISOString();
  return html`<time datetime="${iso}">${iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}</time>`;
}

/**
 * A button that POSTs `fields` to `action` with the page's CSRF token. The page's script sends
 * it with `fetch` and shows the answer; without script it is a plain form post.
 */
export function postButton(
  action: string,
  fields: Readonly<Record<string, string>>,
  label: string,
  token: string,
): Html {
  const hidden = Object.entries(fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  );
  return html`<form method="post" action="${action}" class="act"><input type="hidden" name="${CSRF_FIELD}" value="${token}">${hidden}<button type="submit">${label}</button></form>`;
}
