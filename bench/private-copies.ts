/**
 * What the private-memory check costs a commit to company knowledge (docs/decisions/0031):
 * `findCopiedText` over a person's memory at the dir limit (20 files of 1 MB, 20 MB), a company
 * base of 1 MB, and what a turn might write. Random words, so nothing matches by chance.
 *
 *   npx tsx bench/private-copies.ts
 */
import { findCopiedText } from "../lib/harness/persistent/private-copies";

const word = () =>
  Array.from({ length: 3 + Math.floor(Math.random() * 6) }, () =>
    String.fromCharCode(97 + Math.floor(Math.random() * 26)),
  ).join("");
const text = (chars: number) => {
  const parts: string[] = [];
  let length = 0;
  while (length < chars) {
    const next = word() + (Math.random() < 0.1 ? "\n" : " ");
    parts.push(next);
    length += next.length;
  }
  return parts.join("");
};

const memory = Array.from({ length: 20 }, (_, index) => ({
  path: `/persistent/user/f${index}.md`,
  content: text(1_000_000),
}));
const company = [text(1_000_000)];
const cases: Array<[string, { path: string; content: string }[]]> = [
  ["1 MiB of new text, nothing copied", [{ path: "new.md", content: text(1_048_576) }]],
  ["10 KB of new text, nothing copied", [{ path: "new.md", content: text(10_000) }]],
  [
    "10 KB copied out of one memory file",
    [{ path: "leak.md", content: memory[7]!.content.slice(500_000, 510_000) }],
  ],
  [
    "the whole 20 MB memory copied (cp -r)",
    memory.map((file, index) => ({ path: `leak/f${index}.md`, content: file.content })),
  ],
];
for (const [label, written] of cases) {
  const times: number[] = [];
  let found = 0;
  for (let round = 0; round < 3; round++) {
    const started = performance.now();
    found = findCopiedText({ written, sources: memory, already: company }).length;
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  console.log(`${label}: ${found} file(s) found, median ${times[1]!.toFixed(0)} ms`);
}
const small = [{ path: "/persistent/user/notes.md", content: text(50_000) }];
const written = [{ path: "page.md", content: text(5_000) }];
const base = [text(100_000)];
const started = performance.now();
for (let round = 0; round < 100; round++)
  findCopiedText({ written, sources: small, already: base });
console.log(
  `a typical turn (50 KB memory, 5 KB written, 100 KB company): ${((performance.now() - started) / 100).toFixed(2)} ms`,
);
