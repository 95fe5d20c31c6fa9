import { cairnConfig } from "@/lib/config";
import { createCairn, type Cairn } from "./create-cairn";
import { processSlot } from "./process-slot";

/**
 * The process's Cairn, built from `cairnConfig()` on first use and kept on the process's one
 * `globalThis` slot (so Next's chunks and development reloads share it).
 */
export function cairn(): Cairn {
  const slot = processSlot();
  return (slot.cairn ??= createCairn(cairnConfig()));
}

/**
 * Makes `instance` the process's Cairn until the returned function is called, which puts the
 * previous one back. For tests of app code that reaches the process's Cairn (`getDb()`, route
 * handlers): build one with `createCairn(testConfig(…))`, install it, and `close()` it after.
 */
export function installCairn(instance: Cairn): () => void {
  const slot = processSlot();
  const previous = { cairn: slot.cairn, config: slot.config };
  slot.cairn = instance;
  slot.config = instance.config;
  return () => {
    if (slot.cairn !== instance) return;
    slot.cairn = previous.cairn;
    slot.config = previous.config;
  };
}
