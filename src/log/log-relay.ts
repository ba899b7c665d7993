/**
 * A log destination whose lines can be sent elsewhere for a while: `run --once` at a terminal
 * hands them to its progress display while the bar draws, so a line is printed above the bar
 * instead of being glued onto it, and straight to the terminal before and after. Lines meant
 * for a terminal are made readable here, synchronously, so none is still on its way when the
 * bar starts or stops.
 */
import type { DestinationStream } from 'pino';
import { prettyFactory } from 'pino-pretty';

export class LogRelay implements DestinationStream {
  readonly #prettify: ((line: string) => string) | null;
  #divertedTo: ((line: string) => void) | null = null;

  constructor(
    private readonly out: { write(text: string): unknown },
    options: { readonly pretty: boolean },
  ) {
    this.#prettify = options.pretty
      ? prettyFactory({ colorize: true, singleLine: true, ignore: 'pid,hostname' })
      : null;
  }

  write(line: string): void {
    const text = this.#prettify ? this.#prettify(line) : line;
    if (this.#divertedTo) this.#divertedTo(text);
    else this.out.write(text);
  }

  /** Sends the lines to `to` until the returned function is called. */
  divert(to: (text: string) => void): () => void {
    this.#divertedTo = to;
    return () => {
      if (this.#divertedTo === to) this.#divertedTo = null;
    };
  }
}
