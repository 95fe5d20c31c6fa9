import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FrontmatterError,
  formatMarkdownWithFrontmatter,
  parseMarkdownWithFrontmatter,
  parseYaml,
  type FrontmatterValue,
} from "./frontmatter";

const yaml = (text: string) => parseYaml(text.split("\n"));

describe("frontmatter reader", () => {
  it("reads the Agent Skills and Claude Code shapes", () => {
    const { frontmatter, body } = parseMarkdownWithFrontmatter(
      [
        "---",
        "name: pdf-processing",
        "description: Extract text from PDFs. Use when: the user mentions PDFs",
        "allowed-tools: Read, Bash(python:*)",
        "# a comment",
        "metadata:",
        "  author: example-org",
        '  version: "1.0"',
        "---",
        "",
        "# PDF processing",
        "",
        "Steps.",
        "",
      ].join("\n"),
    );
    expect(frontmatter).toEqual({
      name: "pdf-processing",
      description: "Extract text from PDFs. Use when: the user mentions PDFs",
      "allowed-tools": "Read, Bash(python:*)",
      metadata: { author: "example-org", version: "1.0" },
    });
    expect(body).toBe("# PDF processing\n\nSteps.");
  });

  it("reads nested mappings, lists, flow collections and scalars of the core schema", () => {
    expect(
      yaml(
        [
          "reference:",
          "  type: python",
          "  import: skills.csv_tools",
          "  call_pattern: await summarize(path=...)",
          "arguments:",
          "  path: {type: string, required: true}",
          '  limit: {"type": "integer", "default": 10}',
          "tools:",
          "- Read",
          "- 'Grep'",
          "items:",
          "  - name: a",
          "    value: 1",
          "  - - nested",
          "flags: [true, false, null, ~, 1.5, -3, 0x1F, yes]",
          "empty:",
          'quoted: "tab\\tnew\\nline \\u00e9 \\"q\\""',
          "single: 'it''s: fine # not a comment'",
          "plain: value # a comment",
        ].join("\n"),
      ),
    ).toEqual({
      reference: {
        type: "python",
        import: "skills.csv_tools",
        call_pattern: "await summarize(path=...)",
      },
      arguments: {
        path: { type: "string", required: true },
        limit: { type: "integer", default: 10 },
      },
      tools: ["Read", "Grep"],
      items: [{ name: "a", value: 1 }, ["nested"]],
      flags: [true, false, null, null, 1.5, -3, "0x1F", "yes"],
      empty: null,
      quoted: 'tab\tnew\nline é "q"',
      single: "it's: fine # not a comment",
      plain: "value",
    });
  });

  it("reads block scalars and multi-line quoted and plain scalars", () => {
    expect(
      yaml(
        [
          "literal: |",
          "  line one",
          "    indented",
          "",
          "  line three",
          "folded: >-",
          "  one",
          "  two",
          "",
          "  three",
          "kept: |+",
          "  x",
          "",
          "stripped: |-",
          "  y",
          'multi: "first',
          '  second"',
          "plain: starts here",
          "  and continues",
        ].join("\n"),
      ),
    ).toEqual({
      literal: "line one\n  indented\n\nline three\n",
      folded: "one two\nthree",
      kept: "x\n\n",
      stripped: "y",
      multi: "first second",
      plain: "starts here and continues",
    });
  });

  it.each([
    ["anchors", "a: &x 1\nb: *x"],
    ["tags", "a: !!str 1"],
    ["duplicate keys", "a: 1\na: 2"],
    ["tabs in indentation", "a:\n\tb: 1"],
    ["bad indentation", "a:\n  b: 1\n c: 2"],
    ["unclosed quotes", 'a: "open'],
    ["unclosed flows", "a: [1, 2"],
    ["complex keys", "? a\n: b"],
  ])("refuses %s", (_name, text) => {
    expect(() => yaml(text)).toThrow(FrontmatterError);
  });

  it("never lets a key set a prototype", () => {
    const value = yaml("__proto__:\n  polluted: true\nconstructor: x") as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.hasOwn(value, "__proto__")).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("requires an opening and a closing delimiter", () => {
    expect(() => parseMarkdownWithFrontmatter("# no frontmatter\n")).toThrow(FrontmatterError);
    expect(() => parseMarkdownWithFrontmatter("---\nname: x\n")).toThrow(FrontmatterError);
  });

  it("tolerates a BOM and CRLF line endings", () => {
    const parsed = parseMarkdownWithFrontmatter("\uFEFF---\r\nname: x\r\n---\r\nbody\r\n");
    expect(parsed).toEqual({ frontmatter: { name: "x" }, body: "body" });
  });
});

describe("frontmatter writer", () => {
  const tricky: Record<string, FrontmatterValue> = {
    name: "csv-summary",
    description: 'Use when: a CSV needs "summarising" # really',
    colon: "key: value",
    newline: "two\nlines",
    leadingSpace: "  padded",
    looksLikeBool: "true",
    looksLikeYaml11: "yes",
    looksLikeNumber: "0123",
    looksLikeNull: "~",
    dash: "- item",
    unicode: "café ☕ \u2028 sep",
    control: "bell\u0007",
    empty: "",
    number: 42,
    float: 0.5,
    flag: false,
    nothing: null,
    list: ["Read", "Bash(git:*)", "a, b", ""],
    emptyList: [],
    emptyObject: {},
    nested: { type: "python", deeper: { list: [1, { a: "b" }], "odd key": "x: y" } },
    "weird key:": "v",
    "-dash": 1,
  };

  it("writes what it reads back exactly", () => {
    const text = formatMarkdownWithFrontmatter({
      frontmatter: tricky,
      body: "Body\n\nwith text\n",
    });
    expect(parseMarkdownWithFrontmatter(text)).toEqual({
      frontmatter: tricky,
      body: "Body\n\nwith text\n",
    });
  });

  it("is deterministic and readable", () => {
    const text = formatMarkdownWithFrontmatter({
      frontmatter: { name: "x", description: "Does y: z", tools: ["Read", "Grep"] },
      body: "B",
    });
    expect(text).toBe(
      '---\nname: x\ndescription: "Does y: z"\ntools:\n  - Read\n  - Grep\n---\n\nB\n',
    );
  });

  it.each(["", "\nleading blank", "trailing newline\n", "\n\n", "x\r\ny"])(
    "round-trips the body %j",
    (body) => {
      const text = formatMarkdownWithFrontmatter({ frontmatter: { name: "x" }, body });
      expect(parseMarkdownWithFrontmatter(text).body).toBe(body);
    },
  );
});

describe("frontmatter with the yaml library", () => {
  it("reads an unquoted `key: a: b` value as one string, also nested and in lists", () => {
    expect(
      yaml(
        ["description: Use when: a PDF arrives # note", "meta:", "  hint: x: y", "- a"]
          .slice(0, 3)
          .join("\n"),
      ),
    ).toEqual({ description: "Use when: a PDF arrives", meta: { hint: "x: y" } });
  });

  it("names the line of an error", () => {
    expect(() => yaml("a: 1\nb: &anchor 2")).toThrow(/line 2: anchors and aliases/);
    expect(() => yaml("a: 1\nb: !custom 2")).toThrow(/line 2: tags are not supported/);
  });

  it("round-trips any JSON mapping", () => {
    const value = fc.jsonValue({ maxDepth: 3 });
    fc.assert(
      // Integers beyond 2^53 are read back as their digits on purpose (they would change).
      fc.property(fc.dictionary(fc.string(), value).filter(onlySafeIntegers), (mapping) => {
        const frontmatter = JSON.parse(JSON.stringify(mapping)) as Record<string, FrontmatterValue>;
        const text = formatMarkdownWithFrontmatter({ frontmatter, body: "b" });
        expect(parseMarkdownWithFrontmatter(text).frontmatter).toEqual(frontmatter);
      }),
      { numRuns: 300 },
    );
  });
});

function onlySafeIntegers(value: unknown): boolean {
  if (typeof value === "number") return !Number.isInteger(value) || Number.isSafeInteger(value);
  if (Array.isArray(value)) return value.every(onlySafeIntegers);
  if (value && typeof value === "object") return Object.values(value).every(onlySafeIntegers);
  return true;
}
