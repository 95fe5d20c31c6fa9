import { getSql } from "@/lib/sql-storage/sql";

/** Whether the app's database answers a trivial query (throws when it does not). */
export async function pingDatabase(): Promise<void> {
  await getSql().get(`SELECT 1 AS "one"`);
}
