import { PreconditionFailedError } from '../domain/errors.js';

/**
 * A condition a resource must meet when it is written (If-Match: it is still the version the
 * client read), checked inside the write transaction on the row about to change. False: 412 and
 * nothing written.
 */
export type Precondition<T> = (current: T) => boolean;

export function checkPrecondition<T>(precondition: Precondition<T> | undefined, current: T, what: string): void {
  if (precondition && !precondition(current)) {
    throw new PreconditionFailedError(`${what} changed since you read it (If-Match does not match its ETag); read it again and reapply your change`);
  }
}
