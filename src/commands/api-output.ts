/**
 * What `docsync api` writes on stdout: always one JSON value, also when the call fails. A list
 * streams item by item (a firm's whole list never sits in memory), so its `[` is written only
 * with the first item; a call that fails before any output prints `{"error": …}`, and a list
 * cut off midway ends with that same `{"error": …}` as its last element, then is closed: `jq`
 * reads what is there, and a script that does not look at the exit code (the left side of a
 * pipe) still cannot take the part for the whole list. The exit code and the sentence on stderr
 * say that it failed. A reader that goes away (`| head`) ends the output quietly.
 */
import { ApiError } from '../remote/api-error.js';
import type { MalformedEntry } from '../remote/remote-store.js';

export class JsonOutput {
  #listOpen = false;
  #items = 0;
  #written = false;
  #closed = false;

  constructor(private readonly out: NodeJS.WritableStream) {
    out.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
      this.#closed = true;
    });
  }

  /** The reader went away: there is no point in reading on. */
  get closed(): boolean {
    return this.#closed;
  }

  item(value: unknown): void {
    const shown = isMalformed(value)
      ? { malformed: { id: value.id, error: errorJson(value.error) } }
      : value;
    this.#write(`${this.#items === 0 ? '[\n' : ',\n'}${JSON.stringify(shown)}`);
    this.#listOpen = true;
    this.#items++;
  }

  /** The list is complete (possibly empty). */
  endList(): void {
    this.#write(this.#items === 0 ? '[]\n' : '\n]\n');
    this.#listOpen = false;
  }

  value(value: unknown): void {
    this.#write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** The call failed: what was written stays valid JSON, and says that it failed. */
  failed(error: unknown): void {
    const failure = JSON.stringify({ error: errorJson(error) });
    if (this.#listOpen) this.#write(`,\n${failure}\n]\n`);
    else if (!this.#written) this.#write(`${failure}\n`);
    this.#listOpen = false;
  }

  #write(text: string): void {
    if (this.#closed) return;
    this.#written = true;
    this.out.write(text);
  }
}

/** A list item the client could not read (remote-store.ts, MalformedEntry): said, not dropped. */
function isMalformed(value: unknown): value is MalformedEntry {
  return (
    typeof value === 'object' && value !== null && (value as MalformedEntry).malformed === true
  );
}

function errorJson(error: unknown) {
  const message = (error as Error).message ?? String(error);
  if (!(error instanceof ApiError)) return { code: (error as { code?: string }).code, message };
  return {
    code: error.code,
    ...(error.status !== undefined ? { status: error.status } : {}),
    ...(error.serviceCode ? { serviceCode: error.serviceCode } : {}),
    route: error.route,
    message,
  };
}
