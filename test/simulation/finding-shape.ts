/** A finding's words without what differs from seed to seed: ids, names, numbers, contents. */
export function shapeOf(detail: string): string {
  return detail
    .replace(/"[^"]*"/g, '"…"')
    .replace(/\([^)]*\)/g, '(…)')
    .replace(/(Companies|Trusts)\/[^ ]*( [^ ]*)*?\/?[^ ]*/g, '<path>')
    .replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, '<id>')
    .replace(/\d+/g, 'N');
}
