/**
 * Why a listener could not take its address, as the one sentence the operator reads: the key
 * that names the address, what the system said, and what to do. Node reports these as errors
 * with a `code` (`listen EADDRINUSE: address already in use 127.0.0.1:8787`) and a stack.
 */
import { ListenError } from './errors.js';

/** `error` (from `server.listen`) as the operator's ListenError for `key` = `address`. */
export function listenFailure(key: string, address: string, error: unknown): ListenError {
  const code = (error as { code?: unknown }).code;
  // Node's message repeats the call and the code ("listen EADDRINUSE: address already in use …").
  const message = (error as Error).message.replace(/^\w+ [A-Z_]+: /, '');
  const said = `${typeof code === 'string' ? code : 'error'}: ${message}`;
  const sentence = (() => {
    switch (code) {
      case 'EADDRINUSE':
        return (
          `${key}: ${address} is already in use by another program (${said}); stop that ` +
          `program (another docsync on the same port?) or set ${key} to a free port, then ` +
          'run docsync again.'
        );
      case 'EACCES':
        return (
          `${key}: docsync may not listen on ${address} (${said}); ports below 1024 need ` +
          `privileges docsync does not have: set ${key} to a port from 1024 up.`
        );
      case 'EADDRNOTAVAIL':
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return (
          `${key}: ${address} is not an address of this machine (${said}); set ${key} to ` +
          'one of its addresses, such as 127.0.0.1 with a free port.'
        );
      default:
        return `${key}: docsync cannot listen on ${address} (${said}); check ${key}.`;
    }
  })();
  return new ListenError(key, address, sentence, { cause: error });
}
