/** Prisma's "unique constraint failed" (P2002), recognised without importing a generated client. */
export function isUniqueConstraintError(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2002"
  );
}

/** Prisma's "record to update/delete not found" (P2025). */
export function isNotFoundError(error: unknown): boolean {
  return (
    typeof error === "object" && error !== null && (error as { code?: unknown }).code === "P2025"
  );
}
