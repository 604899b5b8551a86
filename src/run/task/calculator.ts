/**
 * The `calculator` built-in tool: a small expression grammar read by recursive descent, never `eval`.
 *
 *   expr   := term (('+' | '-') term)*
 *   term   := unary (('*' | '/') unary)*
 *   unary  := ('+' | '-') unary | power
 *   power  := atom ('^' unary)?          (right-associative: 2^3^2 = 2^9)
 *   atom   := NUMBER | '(' expr ')'
 *
 * NUMBER is decimal digits with an optional fraction and exponent. Anything else is an error naming its column.
 */

export class CalculatorError extends Error {}

const MAX_LENGTH = 1000;
const MAX_DEPTH = 100;

export function calculate(expression: string): number {
  if (expression.length > MAX_LENGTH)
    throw new CalculatorError(`the expression is longer than ${MAX_LENGTH} characters`);
  let pos = 0;
  let depth = 0;
  const skip = (): void => {
    while (pos < expression.length && /\s/.test(expression[pos])) pos++;
  };
  const peek = (): string => (skip(), expression[pos] ?? '');
  const fail = (what: string): never => {
    throw new CalculatorError(`${what} at column ${pos + 1}`);
  };
  const nested = <T>(f: () => T): T => {
    if (++depth > MAX_DEPTH) fail(`nested deeper than ${MAX_DEPTH}`);
    try {
      return f();
    } finally {
      depth--;
    }
  };
  const expr = (): number =>
    nested(() => {
      let value = term();
      for (let c = peek(); c === '+' || c === '-'; c = peek()) {
        pos++;
        value = c === '+' ? value + term() : value - term();
      }
      return value;
    });
  const term = (): number => {
    let value = unary();
    for (let c = peek(); c === '*' || c === '/'; c = peek()) {
      pos++;
      const right = unary();
      if (c === '/' && right === 0) fail('division by zero');
      value = c === '*' ? value * right : value / right;
    }
    return value;
  };
  const unary = (): number =>
    nested(() => {
      const c = peek();
      if (c === '+' || c === '-') {
        pos++;
        const v = unary();
        return c === '-' ? -v : v;
      }
      return power();
    });
  const power = (): number => {
    const base = atom();
    if (peek() === '^') {
      pos++;
      return base ** unary();
    }
    return base;
  };
  const atom = (): number => {
    const c = peek();
    if (c === '(') {
      pos++;
      const v = expr();
      if (peek() !== ')') fail('expected ")"');
      pos++;
      return v;
    }
    const m = /^(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?/.exec(expression.slice(pos));
    if (!m) return fail(c === '' ? 'unexpected end of the expression' : `unexpected "${c}"`);
    pos += m[0].length;
    return Number(m[0]);
  };
  const value = expr();
  if (peek() !== '') fail(`unexpected "${peek()}"`);
  if (!Number.isFinite(value)) throw new CalculatorError('the result is not a finite number');
  return value;
}
