/**
 * Node 20 shim for `@modelcontextprotocol/conformance` 0.1.16, whose bundle imports `globSync`
 * from `fs` (added in Node 22): preload it with `node --import <this file> <conformance bin>`.
 * A resolve hook answers the package's `fs` / `node:fs` imports with `fs-with-glob.mjs` (all of
 * `node:fs`, plus a `globSync` for the one pattern shape the package uses). Nothing else is
 * redirected; on Node 22 the real `globSync` is used.
 */
import { register } from "node:module";

register("./fs-glob-hooks.mjs", import.meta.url);
