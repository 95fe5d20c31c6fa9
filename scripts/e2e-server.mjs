#!/usr/bin/env node
// The app as the browser tests see it: a fresh SQLite database per run, then `npm start`
// (which builds when the sources changed). Playwright starts and stops this process.
import { rmSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const dataDir = path.join(root, "data", "e2e");
rmSync(dataDir, { recursive: true, force: true });
process.env.DATABASE_URL = `file:${path.join(dataDir, "cairn.db")}`;
process.env.CAIRN_DATA_DIR = dataDir;
process.env.CAIRN_BCRYPT_COST ??= "4";
process.env.AUTH_SECRET ??= "e2e-secret-not-for-production-use-0123456789";
process.env.CAIRN_FAULT_INJECTION ??= "fail-first-commit:fail-me";
await import("./start.mjs");
