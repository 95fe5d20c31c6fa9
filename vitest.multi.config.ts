import path from "node:path";
import { defineConfig } from "vitest/config";

// `npm run test:multi`: two `next start` instances of this checkout's build on one fresh
// PostgreSQL database (CAIRN_TEST_POSTGRES_URL, default the local server). Build first.
export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["multi-instance/**/*.multi.test.ts"],
    environment: "node",
    testTimeout: 240_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    sequence: { concurrent: false },
  },
});
