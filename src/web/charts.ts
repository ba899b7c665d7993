/**
 * Line charts as inline SVG, drawn on the server from the sample ring: no script library and no
 * external asset, so the page works on a server without internet. A chart is a title, up to a
 * few lines over the last hour, the top of its scale, and a legend.
 */
import { escapeHtml, Html, html } from './html.js';

export interface Series {
  readonly label: string;
  readonly color: string;
  /** One value per time; null leaves a gap. */
  readonly values: readonly (number | null)[];
  readonly dashed?: boolean;
}

export interface ChartInput {
  readonly title: string;
  /** What the caption adds after the title, e.g. "now 4.2 / s, 42 % of the budget". */
  readonly now: string;
  readonly unit: string;
  readonly times: readonly number[];
  readonly series: readonly Series[];
  /** The right edge (now) and how far back the chart reaches. */
  readonly end: number;
  readonly spanMs: number;
}

const WIDTH = 600;
const HEIGHT = 120;
const LEFT = 44;

export function lineChart(input: ChartInput): Html {
  const caption = html`<figcaption><strong>${input.title}</strong> (${input.now})</figcaption>`;
  if (input.times.length < 2) {
    return html`<figure class="chart">${caption}<p class="none">Collecting samples: the chart appears after a few seconds.</p></figure>`;
  }
  const top = niceCeiling(Math.max(...input.series.flatMap((s) => s.values.map((v) => v ?? 0))));
  const start = input.end - input.spanMs;
  const x = (t: number) => LEFT + ((t - start) / input.spanMs) * (WIDTH - LEFT);
  const y = (v: number) => HEIGHT - (v / top) * (HEIGHT - 8);
  const lines = input.series.map((s) => {
    const points = s.values
      .map((v, i) => (v === null ? null : `${x(input.times[i]!).toFixed(1)},${y(v).toFixed(1)}`))
      .filter((p) => p !== null)
      .join(' ');
    const dash = s.dashed ? ' stroke-dasharray="6 4"' : '';
    return `<polyline fill="none" stroke="${s.color}" stroke-width="1.5"${dash} points="${points}"><title>${escapeHtml(s.label)}</title></polyline>`;
  });
  const svg = new Html(
    `<svg viewBox="0 0 ${WIDTH} ${HEIGHT + 16}" width="${WIDTH}" height="${HEIGHT + 16}" role="img" aria-label="${escapeHtml(input.title)}">
<line x1="${LEFT}" y1="${HEIGHT}" x2="${WIDTH}" y2="${HEIGHT}" stroke="#999"/>
<line x1="${LEFT}" y1="8" x2="${WIDTH}" y2="8" stroke="#ddd"/>
<text x="${LEFT - 4}" y="12" text-anchor="end" font-size="11">${escapeHtml(formatValue(top))} ${escapeHtml(input.unit)}</text>
<text x="${LEFT - 4}" y="${HEIGHT}" text-anchor="end" font-size="11">0</text>
<text x="${LEFT}" y="${HEIGHT + 14}" font-size="11">${Math.round(input.spanMs / 60_000)} min ago</text>
<text x="${WIDTH}" y="${HEIGHT + 14}" text-anchor="end" font-size="11">now</text>
${lines.join('\n')}
</svg>`,
  );
  const legend = input.series.map(
    (s) =>
      html`<span class="key"><span class="swatch" style="border-color:${s.color};border-style:${s.dashed ? 'dashed' : 'solid'}"></span>${s.label}</span>`,
  );
  return html`<figure class="chart">${caption}${svg}<div class="legend">${legend}</div></figure>`;
}

/** The scale's top: 1, 2 or 5 times a power of ten, at least 1. */
function niceCeiling(value: number): number {
  if (!(value > 1)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((m) => m * power >= value)!;
  return step * power;
}

function formatValue(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
}
