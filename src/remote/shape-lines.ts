/**
 * `docsync check`'s lines on the shapes the service answered in, where api.md's are ours (the
 * lists' keys, the download link, the change times): what was seen, so a firm's first `check
 * --save` tells what the real service sends. Docsync reads each of these forms; a line warns
 * only where something cannot be read.
 */
import { type CheckLine, ok, untried, warn } from '../domain/check-lines.js';
import { plural } from '../domain/words.js';
import type { ShapesSeen, TimestampPlace, TimestampSeen } from './service-shapes.js';
import { linkFormSentence, listFoundSentence } from './shapes.js';

export function shapeLines(seen: ShapesSeen): CheckLine[] {
  return [listsLine(seen), linkLine(seen), timestampLine(seen)];
}

function listsLine({ lists }: ShapesSeen): CheckLine {
  const data = {
    lists: Object.fromEntries([...lists].map(([route, found]) => [route, found])),
  };
  if (lists.size === 0) return untried('list shape', 'no list answered', undefined, data);
  const other = [...lists].filter(([, found]) => found.rule !== 2);
  if (other.length === 0) {
    return ok(
      'list shape',
      `each of the ${plural(lists.size, 'list')} answered with its items under the key the contract gives it`,
      data,
    );
  }
  const read = other.map(([route, found]) => `${route} ${listFoundSentence(found)}`).join('; ');
  const rest = lists.size > other.length ? '; the others as the contract has them' : '';
  return ok('list shape', `${read}${rest}`, data);
}

function linkLine({ link }: ShapesSeen): CheckLine {
  if (link === null) return untried('download link shape', 'no download link was asked for');
  return ok('download link shape', `${link.route}: ${linkFormSentence(link.form)}`, {
    form: link.form,
  });
}

const PLACES: Readonly<Record<TimestampPlace, string>> = {
  list: 'document lists',
  details: 'document details',
};

function timestampLine({ timestamps }: ShapesSeen): CheckLine {
  const data = {
    timestamps: Object.fromEntries(
      [...timestamps].map(([place, forms]) => [place, Object.fromEntries(forms)]),
    ),
  };
  if (timestamps.size === 0)
    return untried('timestamp shape', 'no document was listed or read', undefined, data);
  const parts = [...timestamps].map(([place, forms]) => {
    const each = [...forms].map(([form, { count, example }]) => {
      const e = example === null ? '' : ` (e.g. ${example})`;
      return `${forms.size > 1 ? `${count} ` : ''}${formSentence(form, place)}${e}`;
    });
    return `${PLACES[place]}: lastUpdatedTimestamp ${each.join(', ')}`;
  });
  const text = parts.join('; ');
  const formsOf = (place: TimestampPlace) => new Set(timestamps.get(place)?.keys() ?? []);
  const unreadable = [...timestamps.values()].some((forms) => forms.has('unreadable'));
  const neither = formsOf('list').has('missing') && formsOf('details').has('missing');
  if (unreadable || neither) {
    return warn(
      'timestamp shape',
      text,
      'A document whose change time cannot be read, in its list item or its details, is an item in error; tell the service provider.',
      data,
    );
  }
  return ok('timestamp shape', text, data);
}

function formSentence(form: TimestampSeen, place: TimestampPlace): string {
  switch (form) {
    case 'none':
      return 'without an offset, read as UTC, as the contract has it';
    case 'Z':
      return 'in UTC with Z';
    case '+00:00':
    case '+0000':
    case '+00':
      return `in UTC with ${form}`;
    case 'offset':
      return 'with an offset from UTC, converted to UTC';
    case 'missing':
      return place === 'list'
        ? "left out: docsync reads each listed document's details for it, every sync"
        : "left out: docsync takes the list item's";
    case 'unreadable':
      return 'not a timestamp docsync reads';
  }
}
