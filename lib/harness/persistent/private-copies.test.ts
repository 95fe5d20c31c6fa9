import { describe, expect, it } from "vitest";
import { findCopiedText } from "./private-copies";

// Issue 31, finding 6: which written text holds a piece of the person's private memory that the
// shared place did not hold already.

const SECRET = [
  "# Private",
  "Bank login: ada.l / hunter2-correct-horse",
  "Doctor's appointment on 3 May about the biopsy results.",
].join("\n");

const sources = [{ path: "/persistent/user/secret.md", content: SECRET }];

describe("findCopiedText", () => {
  it("finds a whole copy, a line, and a re-wrapped paragraph; not a short common word", () => {
    const written = [
      { path: "/persistent/company/leak/secret.md", content: SECRET },
      {
        path: "/persistent/company/notes.md",
        content: "Team notes\nBank login: ada.l / hunter2-correct-horse\n",
      },
      {
        path: "/persistent/company/wrapped.md",
        content: "> DOCTOR'S appointment on 3 May\n>   about the   biopsy results.",
      },
      { path: "/persistent/company/plain.md", content: "# Private\nNothing to see here.\n" },
    ];
    expect(findCopiedText({ written, sources, already: [] })).toEqual([
      {
        path: "/persistent/company/leak/secret.md",
        source: "/persistent/user/secret.md",
        chars: expect.any(Number),
      },
      {
        path: "/persistent/company/notes.md",
        source: "/persistent/user/secret.md",
        chars: expect.any(Number),
      },
      {
        path: "/persistent/company/wrapped.md",
        source: "/persistent/user/secret.md",
        chars: expect.any(Number),
      },
    ]);
  });

  it("ignores what the shared place held already, and short private files copied in part", () => {
    const handbook = "Deploys happen on Fridays after the stand-up meeting.";
    expect(
      findCopiedText({
        written: [{ path: "/persistent/company/handbook.md", content: `${handbook}\nNew line.` }],
        sources: [{ path: "/persistent/user/notes.md", content: `I noted: ${handbook}` }],
        already: [handbook],
      }),
    ).toEqual([]);
    // A short private file counts when it is copied whole.
    expect(
      findCopiedText({
        written: [{ path: "/persistent/company/pin.md", content: "PIN: 4932-7781" }],
        sources: [{ path: "/persistent/user/pin.md", content: "PIN: 4932-7781" }],
        already: [],
      }),
    ).toHaveLength(1);
  });

  it("finds an exact copy of private bytes, and stays linear on a long copy", () => {
    const bytes = new Uint8Array([1, 2, 3, 4, 5]);
    expect(
      findCopiedText({
        written: [{ path: "/persistent/company/a.bin", content: new Uint8Array(bytes) }],
        sources: [{ path: "/persistent/user/a.bin", content: bytes }],
        already: [],
      }),
    ).toHaveLength(1);

    // 1 MiB of copied text in which the only new piece is at the very end: every region is
    // grown once, so this takes well under a second (a quadratic scan would take minutes).
    const shared = Array.from(
      { length: 20_000 },
      (_, index) => `line ${index} of the handbook`,
    ).join("\n");
    const privateText = `${shared}\nand my own secret note at the end`;
    const found = findCopiedText({
      written: [{ path: "/persistent/company/copy.md", content: privateText }],
      sources: [{ path: "/persistent/user/copy.md", content: privateText }],
      already: [shared],
    });
    expect(found).toHaveLength(1);
  });
});
