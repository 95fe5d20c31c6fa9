import { randomBytes } from "node:crypto";
import { hostname } from "node:os";

/**
 * A new row id in the shape of the schema's `@default(cuid())` (what Prisma's client writes):
 * 25 characters, `c` then base-36 time, a per-process counter, a host/process fingerprint and
 * random digits. Rows written through the SQL layer set their id with this, so ids look the same
 * whichever way a row was written; like cuid, it sorts roughly by creation and is not secret.
 */
export function createId(): string {
  counter = (counter + 1) % COUNTER_SPACE;
  return (
    "c" +
    Date.now().toString(36).padStart(8, "0").slice(-8) +
    counter.toString(36).padStart(4, "0") +
    FINGERPRINT +
    randomDigits(8)
  );
}

const COUNTER_SPACE = 36 ** 4;
let counter = Math.floor(Math.random() * COUNTER_SPACE);

const FINGERPRINT = (() => {
  const host = [...hostname()].reduce((sum, char) => sum + char.charCodeAt(0), hostname().length);
  return (
    (process.pid % 1296).toString(36).padStart(2, "0") + (host % 1296).toString(36).padStart(2, "0")
  );
})();

function randomDigits(count: number): string {
  const bytes = randomBytes(count);
  let digits = "";
  for (const byte of bytes) digits += (byte % 36).toString(36);
  return digits;
}
