/** A phrase with its indefinite article, by its first letter ("an openai model", "a meta model"). */
export const article = (phrase: string): string =>
  /^[aeiou]/i.test(phrase) ? `an ${phrase}` : `a ${phrase}`;
