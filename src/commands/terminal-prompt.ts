/**
 * Questions at a terminal, for `docsync init`: a line with a default shown in brackets, yes or
 * no, and a secret typed without echo. Commands ask only when both stdin and stdout are a
 * terminal; a script gets flags instead, and the command never waits for an answer.
 */
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';

export interface Prompter {
  /** The answer, or `fallback` for an empty one. */
  ask(question: string, fallback?: string): Promise<string>;
  yesNo(question: string, fallback: boolean): Promise<boolean>;
  /** Typed without echo; empty when nothing was typed. */
  secret(question: string): Promise<string>;
  close(): void;
}

export function terminalPrompter(
  input: NodeJS.ReadableStream,
  output: NodeJS.WritableStream,
): Prompter {
  let muted = false;
  // readline echoes what is typed through its output: muted while a secret is typed.
  const echo = new Writable({
    write(chunk, _encoding, done) {
      if (!muted) output.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input, output: echo, terminal: true });
  const ask = async (question: string, fallback?: string) => {
    const shown = fallback ? `${question} [${fallback}]: ` : `${question}: `;
    const answer = (await rl.question(shown)).trim();
    return answer === '' ? (fallback ?? '') : answer;
  };
  return {
    ask,
    async yesNo(question, fallback) {
      for (;;) {
        const answer = (await ask(`${question} (yes/no)`, fallback ? 'yes' : 'no')).toLowerCase();
        if (['y', 'yes'].includes(answer)) return true;
        if (['n', 'no'].includes(answer)) return false;
        output.write('Please answer yes or no.\n');
      }
    },
    async secret(question) {
      output.write(`${question}: `);
      muted = true;
      try {
        return (await rl.question('')).trim();
      } finally {
        muted = false;
        output.write('\n');
      }
    },
    close: () => rl.close(),
  };
}
