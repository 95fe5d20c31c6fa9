/**
 * Text helpers for the prompt view. Everything here is linear in the (bounded) prefix it
 * looks at, so a 64 KB entry costs no more than a short one.
 */

const WHITESPACE_OR_CONTROL = /[\s\p{Cc}]+/gu;
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069\u200E\u200F\u061C]/g;
const LONE_SURROGATE = /\p{Cs}/gu;
// `<` that could start the section's closing tag, another harness_state tag, any closing
// tag, or a special-token look-alike (`<|im_start|>`). Other `<` (e.g. `Array<string>`) stay.
const FENCE_BREAKER = /<(?=\s*(?:\/|\||harness_state\b))/gi;
const CLUSTER_CONTINUATION = /[\p{M}\u200D\uFE00-\uFE0F]/u;

/** The marker appended to text that was cut. */
export const CUT_MARKER = " […]";

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/**
 * The largest cut index ≤ `index` that splits neither a surrogate pair nor a base character
 * from its combining marks / joiners.
 */
export function safeCutIndex(text: string, index: number): number {
  let cut = Math.max(0, Math.min(index, text.length));
  for (;;) {
    if (cut > 0 && cut < text.length && isHighSurrogate(text.charCodeAt(cut - 1))) {
      cut -= 1;
      continue;
    }
    if (cut > 0 && cut < text.length && CLUSTER_CONTINUATION.test(text[cut]!)) {
      cut -= 1;
      continue;
    }
    return cut;
  }
}

/**
 * Makes untrusted text safe to place inside the fenced data block: one line (every run of
 * whitespace or control characters becomes one space), no bidi controls, no lone
 * surrogates, no `<` that could close the fence or pose as a tag/special token — then cut to
 * at most `maxChars` UTF-16 units (plus `CUT_MARKER`) at a character boundary.
 */
export function toFencedLine(value: unknown, maxChars: number): string {
  const text =
    typeof value === "string"
      ? value
      : value === null || value === undefined
        ? ""
        : String(value as string);
  const limit = Math.max(0, Math.floor(maxChars));
  // Look only at a bounded prefix; squeezing can only shorten it further.
  const scanLength = limit * 4 + 64;
  const truncatedInput = text.length > scanLength;
  const prefix = truncatedInput ? text.slice(0, safeCutIndex(text, scanLength)) : text;
  const squeezed = prefix
    .replace(LONE_SURROGATE, "\uFFFD")
    .replace(BIDI_CONTROLS, "")
    .replace(WHITESPACE_OR_CONTROL, " ")
    .trim()
    .replace(FENCE_BREAKER, "&lt;");
  if (squeezed.length <= limit && !truncatedInput) return squeezed;
  if (squeezed.length <= limit) return `${squeezed}${CUT_MARKER}`;
  const cut = safeCutIndex(squeezed, limit);
  return `${squeezed.slice(0, cut).trimEnd()}${CUT_MARKER}`;
}
