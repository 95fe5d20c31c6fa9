import type { Entry } from "../types";

/**
 * An entry as storage returns it, for tests: a global `memory` at path `general`, version 1,
 * made and last changed by `u` on 2025-01-01; `fields` sets any field.
 */
export function testEntry(fields: Partial<Entry> & Pick<Entry, "id">): Entry {
  return {
    kind: "memory",
    title: fields.id,
    content: "",
    path: "general",
    scope: "global",
    chatId: null,
    metadata: {},
    pinned: false,
    source: "user",
    version: 1,
    createdAt: "2025-01-01T00:00:00.000Z",
    updatedAt: "2025-01-01T00:00:00.000Z",
    createdBy: "u",
    updatedBy: "u",
    ...fields,
  };
}
