/**
 * What a terminal shows after some output: the escape sequences cli-progress, readline and
 * pino-pretty use (cursor to a column, clear the line or its end, cursor up, modes, colours)
 * applied, so a test reads the screen a person would see, line by line.
 */
const ESC = String.fromCharCode(27);
const CSI = new RegExp(`^${ESC}\\[(\\??)([\\d;]*)([A-Za-z])`);

export function screen(output: string, options: { columns?: number } = {}): string[] {
  const lines: string[] = [''];
  let row = 0;
  let col = 0;
  // A terminal of `columns` wraps a long line onto the next, unless told not to (`ESC[?7l`),
  // when each further character lands on the last column: the line is cut.
  const columns = options.columns ?? Number.POSITIVE_INFINITY;
  let wrap = true;
  const put = (ch: string) => {
    if (col >= columns) {
      if (wrap) {
        row++;
        col = 0;
        if (lines.length <= row) lines.push('');
      } else col = columns - 1;
    }
    const line = lines[row]!.padEnd(col);
    lines[row] = line.slice(0, col) + ch + line.slice(col + 1);
    col++;
  };
  for (let i = 0; i < output.length; i++) {
    const rest = output.slice(i);
    const esc = CSI.exec(rest);
    if (esc) {
      const [all, mode, n, op] = esc;
      i += all.length - 1;
      if (mode && n === '7') wrap = op === 'h'; // line wrapping on (h) or off (l)
      if (mode || op === 'm') continue; // cursor shown or hidden, wrapping on or off; colours
      if (op === 'G') col = Number(n || 1) - 1;
      else if (op === 'K' && n === '2') lines[row] = '';
      else if (op === 'K') lines[row] = lines[row]!.slice(0, col);
      else if (op === 'A') row = Math.max(0, row - Number(n || 1));
      continue;
    }
    const ch = output[i]!;
    if (ch === '\r') col = 0;
    else if (ch === '\n') {
      row++;
      col = 0;
      if (lines.length <= row) lines.push('');
    } else put(ch);
  }
  return lines.map((l) => l.trimEnd()).filter((l, i, all) => l !== '' || i < all.length - 1);
}
