import { clsx, type ClassValue } from "clsx";
import { twMerge } from "tailwind-merge";

/** Merge class names, letting later Tailwind utilities win over earlier ones. */
export function cn(...inputs: ClassValue[]): string {
  return twMerge(clsx(inputs));
}

/** A query string of the parameters that have a value (empty and missing ones are left out). */
export function queryOf(params: Record<string, string | null | undefined>): URLSearchParams {
  return new URLSearchParams(
    Object.entries(params).filter((pair): pair is [string, string] => Boolean(pair[1])),
  );
}

/** Whether `value` parses as an absolute `http:` or `https:` URL. */
export function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}
