/**
 * A `fetch` for model calls that spares undici its per-request copy. By the Fetch standard a
 * request is cloned before it is sent — its body stream teed, two more web streams per call —
 * unless it has no window and its redirect mode is `error`; a model call never needs the copy
 * (decision 0026). A model API that answers with a redirect still works: the call is repeated
 * once as given (redirects followed). Only string and bodiless requests take the short path;
 * anything else (a stream body cannot be sent twice) goes to `base` unchanged.
 */
export function unclonedFetch(base: typeof fetch): typeof fetch {
  return async (input, init) => {
    const body = init?.body;
    if (body !== undefined && body !== null && typeof body !== "string") return base(input, init);
    try {
      return await base(input, { ...init, window: null, redirect: "error" });
    } catch (error) {
      if (!isRedirectRefusal(error) || init?.signal?.aborted) throw error;
      return base(input, init);
    }
  };
}

/** undici's failure for a redirect under `redirect: "error"`: `fetch failed`, caused by it. */
function isRedirectRefusal(error: unknown): boolean {
  const cause = (error as { cause?: unknown } | null)?.cause;
  return error instanceof TypeError && cause instanceof Error && /redirect/i.test(cause.message);
}
