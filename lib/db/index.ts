export { createDb, databaseTargetOf, getDb, type Db } from "./client";
export { resolveDatabaseTarget, defaultDataDirectory, type DatabaseTarget } from "./database-url";
export { migrateDatabase, type MigrateResult } from "./migrate";
export { isUniqueConstraintError, isNotFoundError } from "./errors";
export { createId } from "./create-id";
