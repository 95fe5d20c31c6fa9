#!/usr/bin/env node
// The `cairn` command. Loads the TypeScript CLI through tsx so it shares code with the app.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../cli/main.ts");
process.exitCode = await main(process.argv.slice(2));
