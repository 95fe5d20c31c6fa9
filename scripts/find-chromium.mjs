#!/usr/bin/env node
// Finds a Chromium for the browser tests: $CHROMIUM_PATH, then the usual install paths.
// `--check` exits 1 with the install command when there is none.
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const candidates = [
  process.env.CHROMIUM_PATH,
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/snap/bin/chromium",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
].filter(Boolean);

export function findChromium() {
  return candidates.find((candidate) => existsSync(candidate)) ?? null;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes("--check")) {
  const found = findChromium();
  if (!found) {
    console.error(
      "The browser tests need Chromium and none was found.\n" +
        "Install it with:  sudo apt-get update && sudo apt-get install -y chromium\n" +
        "or point CHROMIUM_PATH at a Chromium or Chrome binary.",
    );
    process.exit(1);
  }
  console.log(`browser tests: using ${found}`);
}
