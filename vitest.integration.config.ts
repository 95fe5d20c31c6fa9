import path from "node:path";
import { defineConfig } from "vitest/config";

/**
 * Integration tests against the built app (`next start`): `npm run test:integration`. Each file
 * starts its own server (scripts/start.mjs builds first when the sources changed).
 */
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["integration/**/*.integration.test.ts"],
    environment: "node",
    testTimeout: 120_000,
    hookTimeout: 25 * 60 * 1000,
    fileParallelism: false,
  },
});
