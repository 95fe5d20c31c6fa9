import type { z } from "zod";

/** A page's `searchParams` as Next gives them: a repeated parameter is an array. */
export type RawSearchParams = Record<string, string | string[] | undefined>;

/** The first value of each parameter, so `?chat=a&chat=b` reads as `chat=a`. */
export function firstSearchValues(raw: RawSearchParams): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === "string") values[name] = first;
  }
  return values;
}

/** The parsed query, or a message naming what is wrong with it (for a "bad link" notice). */
export type ParsedSearchParams<T> = { ok: true; data: T } | { ok: false; message: string };

/**
 * Parses a page's query string with `schema` after taking the first value of each parameter.
 * A query the schema refuses gives a readable message instead of throwing, so a mangled link
 * shows a notice rather than a server error.
 */
export function parseSearchParams<T>(
  schema: z.ZodType<T>,
  raw: RawSearchParams,
): ParsedSearchParams<T> {
  const parsed = schema.safeParse(firstSearchValues(raw));
  if (parsed.success) return { ok: true, data: parsed.data };
  const problems = parsed.error.issues.map((issue) => {
    const name = issue.path.join(".") || "query";
    return `${name}: ${issue.message}`;
  });
  return { ok: false, message: `This link's query string is not valid (${problems.join("; ")}).` };
}
