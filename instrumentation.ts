/**
 * Runs once when the server starts: the durability loop begins at once, so changes spooled while
 * the database was away are imported and turns a dead process left running are closed as
 * interrupted before anyone asks (docs/persistent-dirs.md, "Nothing lost").
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getDurability } = await import("@/lib/persistent-dirs");
  try {
    getDurability();
  } catch (error) {
    console.error("cairn: durability did not start; it starts with the first chat turn", error);
  }
}
