/**
 * An error the simulator answers with: an HTTP status, a code and a message, written as the
 * profile's error body (profile.ts). Admin operations throw the same errors in-process.
 */
import { DocsyncError } from '../domain/errors.js';

export class SimError extends DocsyncError {
  readonly status: number;

  constructor(status: number, code: string, message: string) {
    super(code, message);
    this.status = status;
  }
}

export const badRequest = (message: string) => new SimError(400, 'bad_request', message);
export const notFound = (message: string) => new SimError(404, 'not_found', message);
export const unprocessable = (message: string) => new SimError(422, 'validation_failed', message);
