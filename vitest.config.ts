import path from "node:path";
import { defineConfig } from "vitest/config";

export default defineConfig({
  resolve: { alias: { "@": path.resolve(import.meta.dirname) } },
  test: {
    include: ["**/*.test.ts"],
    // Suites that need a build run on their own: `npm run test:integration`, `npm run test:multi`.
    exclude: [
      "node_modules/**",
      ".next/**",
      "e2e/**",
      "data/**",
      "integration/**",
      "**/*.multi.test.ts",
    ],
    environment: "node",
    // The app's durability signs its spool with a key from AUTH_SECRET (lib/workspace-dirs):
    // code that runs chat turns needs one, as the server does.
    // Passwords hashed at bcrypt's lowest cost: the tests create many accounts.
    env: {
      AUTH_SECRET: "vitest-secret-not-for-production-0123456789",
      CAIRN_BCRYPT_COST: "4",
    },
    // next-auth imports `next/server` without its extension, which Node's ESM resolver refuses;
    // Vite's resolver (inline) finds it, so code that imports next-auth can be unit-tested.
    server: { deps: { inline: ["next-auth"] } },
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Database suites share one database per run; files run one at a time for clear isolation.
    fileParallelism: false,
  },
});
