// With the `u` flag a surrogate range matches only surrogates that are not part of a pair.
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * The index of the first lone UTF-16 surrogate in `text`, or -1. A lone surrogate has no UTF-8
 * encoding: `TextEncoder` would replace it with U+FFFD, so two different strings would hash alike.
 */
export function findLoneSurrogate(text: string): number {
  return text.search(LONE_SURROGATE);
}
