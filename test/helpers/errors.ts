// The RosterError a promise rejects with; fails the test when it resolves or rejects with anything else.
import { expect } from 'vitest';
import { RosterError } from '../../src/errors.js';

export async function failure(promise: Promise<unknown>): Promise<RosterError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(RosterError);
  return error as RosterError;
}
