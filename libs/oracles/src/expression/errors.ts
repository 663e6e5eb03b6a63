/**
 * Errors of the expression language. Every problem is found when an expression is compiled
 * (once per configuration version); evaluating a compiled expression never throws.
 */

/** A syntax or compile error in an expression, with the 0-based character offset it points at. */
export class ExpressionError extends Error {
  override readonly name = 'ExpressionError';
  /** 0-based offset in the expression's source (in UTF-16 code units, like `String.prototype.slice`). */
  readonly offset: number;

  constructor(message: string, offset: number) {
    super(message);
    this.offset = Math.max(0, offset);
  }
}
