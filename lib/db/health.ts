import { getDb } from "./client";

/** Whether the app's database answers a trivial query (throws when it does not). */
export async function pingDatabase(): Promise<void> {
  await getDb().$queryRawUnsafe("SELECT 1");
}
