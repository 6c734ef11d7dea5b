import { validator } from '../schemas.ts';
import { fieldError, fromAjvError } from './errors.ts';

/**
 * Validates against a schema in schemas/ (the single source of truth for shapes) and throws a
 * validation_error naming the first failing field. `prefix` places a sub-document in the body,
 * e.g. "/configuration" when validating a connection's configuration on its own.
 */
export function requireShape(ref: string, value: unknown, prefix = ''): void {
  const validate = validator(ref);
  if (validate(value)) return;
  const errors = validate.errors ?? [];
  // A combinator's own error ("must NOT be valid") says nothing about the field; Ajv may list it
  // first, so the first error about a concrete keyword is the one worth naming.
  const telling = errors.find((e) => !COMBINATORS.has(e.keyword)) ?? errors[0];
  throw telling ? fromAjvError(telling, prefix) : fieldError(prefix, 'is invalid');
}

const COMBINATORS = new Set(['not', 'allOf', 'anyOf', 'oneOf', 'if', 'then', 'else']);

/** Narrowing for bodies already checked by requireShape. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
