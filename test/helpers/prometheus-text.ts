/**
 * A small parser of the Prometheus text exposition format (version 0.0.4), independent of
 * prom-client, so the tests check what a Prometheus server would read rather than trusting the
 * library that wrote it. Handles HELP/TYPE lines, labels with escapes, and special values.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Exposition {
  readonly types: ReadonlyMap<string, string>;
  readonly samples: readonly Sample[];
  /** The value of `name` with exactly these labels; undefined when absent. */
  value(name: string, labels?: Record<string, string>): number | undefined;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)(?:\s+-?\d+)?$/;
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"\s*(,|$)/y;

export function parsePrometheusText(text: string): Exposition {
  const types = new Map<string, string>();
  const samples: Sample[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
      if (type) types.set(type[1]!, type[2]!);
      else if (!/^# HELP \S+ /.test(line)) throw new Error(`line ${index + 1}: bad comment`);
      continue;
    }
    const match = SAMPLE.exec(line);
    if (!match) throw new Error(`line ${index + 1}: not a sample: ${line}`);
    samples.push({
      name: match[1]!,
      labels: parseLabels(match[2]?.slice(1, -1) ?? '', index + 1),
      value: parseValue(match[3]!),
    });
  }
  return {
    types,
    samples,
    value: (name, labels = {}) =>
      samples.find((s) => s.name === name && sameLabels(s.labels, labels))?.value,
  };
}

function parseLabels(body: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  LABEL.lastIndex = 0;
  while (LABEL.lastIndex < body.length) {
    const match = LABEL.exec(body);
    if (!match) throw new Error(`line ${line}: bad labels: {${body}}`);
    labels[match[1]!] = match[2]!.replace(/\\(.)/g, (_all, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

function parseValue(text: string): number {
  if (text === '+Inf') return Number.POSITIVE_INFINITY;
  if (text === '-Inf') return Number.NEGATIVE_INFINITY;
  const value = Number(text);
  if (text !== 'NaN' && Number.isNaN(value)) throw new Error(`bad value ${text}`);
  return value;
}

function sameLabels(a: Readonly<Record<string, string>>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => a[k] === b[k]);
}
