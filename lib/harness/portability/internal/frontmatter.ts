/**
 * A small, strict-where-it-matters YAML subset for Markdown frontmatter (SKILL.md, sub-agent
 * files). We read what Agent Skills, Claude Code sub-agents and Prime Agent write and refuse
 * the parts of YAML that make files ambiguous or dangerous to round-trip.
 *
 * Read: block mappings and sequences (including `- key: value` items), plain, single- and
 * double-quoted scalars (multi-line too), literal `|` and folded `>` block scalars with
 * chomping/indentation indicators, JSON-style flow collections (`[a, b]`, `{"k": 1}`) and
 * comments. Plain scalars resolve with the YAML 1.2 core schema (null, booleans, numbers),
 * everything else is a string. Refused with `FrontmatterError`: anchors, aliases, tags,
 * complex keys, tabs in indentation, duplicate keys, multiple documents.
 *
 * Write: a deterministic block style that this reader (and any YAML 1.2 reader) parses back
 * to the same JSON value; strings are plain only when that is unambiguous, otherwise
 * double-quoted with JSON escapes.
 */

/** A frontmatter value: plain JSON. */
export type FrontmatterValue =
  string | number | boolean | null | FrontmatterValue[] | { [key: string]: FrontmatterValue };

/** A frontmatter block could not be read (or a value could not be written). */
export class FrontmatterError extends Error {
  constructor(
    message: string,
    readonly line?: number,
  ) {
    super(line === undefined ? message : `line ${line}: ${message}`);
    this.name = "FrontmatterError";
  }
}

/** A Markdown document split into its frontmatter and body. */
export interface MarkdownWithFrontmatter {
  frontmatter: Record<string, FrontmatterValue>;
  body: string;
}

const DELIMITER = /^---[ \t]*\r?$/;
const END_DELIMITER = /^(?:---|\.\.\.)[ \t]*\r?$/;

/**
 * Splits a Markdown file into frontmatter and body. The file must start with a `---` line
 * (a UTF-8 BOM is tolerated) and the frontmatter ends at the next `---` or `...` line.
 *
 * The body is everything after the closing delimiter, minus one leading blank line and one
 * trailing line break — exactly what `formatMarkdownWithFrontmatter` adds — so a body
 * round-trips byte for byte.
 */
export function parseMarkdownWithFrontmatter(text: string): MarkdownWithFrontmatter {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const lines = source.split("\n");
  if (!DELIMITER.test(lines[0] ?? "")) {
    throw new FrontmatterError("the file does not start with a '---' frontmatter block", 1);
  }
  let end = -1;
  for (let index = 1; index < lines.length; index++) {
    if (END_DELIMITER.test(lines[index]!)) {
      end = index;
      break;
    }
  }
  if (end === -1) throw new FrontmatterError("the frontmatter block is not closed with '---'");
  const crlf = lines[0]!.endsWith("\r");
  const yamlLines = lines
    .slice(1, end)
    .map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  const value = parseYaml(yamlLines, 2);
  if (value === null) return { frontmatter: {}, body: bodyOf(lines.slice(end + 1), crlf) };
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new FrontmatterError("the frontmatter must be a mapping of keys to values", 2);
  }
  return { frontmatter: value, body: bodyOf(lines.slice(end + 1), crlf) };
}

function bodyOf(lines: string[], crlf: boolean): string {
  let body = lines.join("\n");
  const newline = crlf ? "\r\n" : "\n";
  if (body.startsWith(newline)) body = body.slice(newline.length);
  else if (body.startsWith("\n")) body = body.slice(1);
  if (body.endsWith(newline)) body = body.slice(0, -newline.length);
  else if (body.endsWith("\n")) body = body.slice(0, -1);
  return body;
}

/**
 * Formats a Markdown file: `---`, the frontmatter (keys in the given order), `---`, a blank
 * line, the body and a final line break. `parseMarkdownWithFrontmatter` reads it back exactly.
 */
export function formatMarkdownWithFrontmatter(document: MarkdownWithFrontmatter): string {
  return `---\n${formatYamlMapping(document.frontmatter)}---\n\n${document.body}\n`;
}

// ---------------------------------------------------------------------------------------------
// Reader
// ---------------------------------------------------------------------------------------------

interface Line {
  /** 1-based line number in the file, for error messages. */
  number: number;
  indent: number;
  /** The line without its indentation. */
  text: string;
  /** The raw line (block scalars need the original indentation). */
  raw: string;
}

/** Parses YAML lines (the frontmatter block) into a JSON value; an empty block is `null`. */
export function parseYaml(rawLines: readonly string[], firstLineNumber = 1): FrontmatterValue {
  const lines: Line[] = rawLines.map((raw, index) => {
    const number = firstLineNumber + index;
    const match = /^( *)(.*)$/s.exec(raw)!;
    const indentation = match[1]!;
    const text = match[2]!;
    if (text.startsWith("\t") && text.trim() !== "") {
      throw new FrontmatterError("tabs are not allowed in indentation", number);
    }
    return { number, indent: indentation.length, text, raw };
  });
  const parser = new Parser(lines);
  const start = parser.nextSignificant();
  if (start === -1) return null;
  const value = parser.parseBlock(lines[start]!.indent, -1);
  const rest = parser.nextSignificant();
  if (rest !== -1) {
    throw new FrontmatterError("unexpected content (check the indentation)", lines[rest]!.number);
  }
  return value;
}

const KEY_LINE =
  /^((?:"(?:[^"\\]|\\.)*")|(?:'(?:[^']|'')*')|(?:[^\s#'"[\]{},&*!|>%@`?-][^#]*?)|(?:-[^\s][^#]*?))[ \t]*:(?=[ \t]|$)/;
const SEQUENCE_ITEM = /^-(?=[ \t]|$)/;

function isBlank(line: Line): boolean {
  return line.text.trim() === "" || line.text.trimStart().startsWith("#");
}

class Parser {
  private position = 0;

  constructor(private readonly lines: Line[]) {}

  /** Index of the next line that is not blank or a comment (and moves there), or -1. */
  nextSignificant(): number {
    while (this.position < this.lines.length && isBlank(this.lines[this.position]!))
      this.position++;
    return this.position < this.lines.length ? this.position : -1;
  }

  /** A block node whose lines are indented exactly `indent` (more than `parentIndent`). */
  parseBlock(indent: number, parentIndent: number): FrontmatterValue {
    const index = this.nextSignificant();
    if (index === -1) return null;
    const line = this.lines[index]!;
    if (line.indent <= parentIndent) return null;
    if (SEQUENCE_ITEM.test(line.text)) return this.parseSequence(line.indent);
    if (KEY_LINE.test(line.text)) return this.parseMapping(line.indent);
    // A bare scalar as a block node (e.g. a value on the line after its key).
    this.position++;
    return this.parseInlineValue(line.text, line, parentIndent);
  }

  parseMapping(indent: number): Record<string, FrontmatterValue> {
    const result: Record<string, FrontmatterValue> = {};
    for (;;) {
      const index = this.nextSignificant();
      if (index === -1) break;
      const line = this.lines[index]!;
      if (line.indent < indent) break;
      if (line.indent > indent) {
        throw new FrontmatterError("unexpected indentation", line.number);
      }
      if (SEQUENCE_ITEM.test(line.text)) {
        throw new FrontmatterError("a list item where a key was expected", line.number);
      }
      const match = KEY_LINE.exec(line.text);
      if (!match) throw new FrontmatterError(`expected "key: value"`, line.number);
      const key = parseKey(match[1]!, line.number);
      if (Object.hasOwn(result, key)) {
        throw new FrontmatterError(`duplicate key ${JSON.stringify(key)}`, line.number);
      }
      const rest = line.text.slice(match[0].length).trim();
      this.position = index + 1;
      let value: FrontmatterValue;
      if (rest === "" || rest.startsWith("#")) {
        const next = this.nextSignificant();
        const nextLine = next === -1 ? undefined : this.lines[next];
        if (nextLine && nextLine.indent > indent) value = this.parseBlock(nextLine.indent, indent);
        else if (nextLine && nextLine.indent === indent && SEQUENCE_ITEM.test(nextLine.text)) {
          // YAML allows a sequence value at the same indentation as its key.
          value = this.parseSequence(indent);
        } else value = null;
      } else {
        value = this.parseInlineValue(rest, line, indent);
      }
      // `__proto__` and friends become own data properties, never prototypes.
      Object.defineProperty(result, key, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return result;
  }

  parseSequence(indent: number): FrontmatterValue[] {
    const result: FrontmatterValue[] = [];
    for (;;) {
      const index = this.nextSignificant();
      if (index === -1) break;
      const line = this.lines[index]!;
      if (line.indent !== indent || !SEQUENCE_ITEM.test(line.text)) {
        if (line.indent > indent) throw new FrontmatterError("unexpected indentation", line.number);
        break;
      }
      const afterDash = line.text.slice(1);
      const rest = afterDash.trimStart();
      const column = indent + 1 + (afterDash.length - rest.length);
      if (rest === "" || rest.startsWith("#")) {
        this.position = index + 1;
        const next = this.nextSignificant();
        const nextLine = next === -1 ? undefined : this.lines[next];
        result.push(
          nextLine && nextLine.indent > indent ? this.parseBlock(nextLine.indent, indent) : null,
        );
      } else if (SEQUENCE_ITEM.test(rest) || KEY_LINE.test(rest)) {
        // A compact nested node (`- key: value` or `- - item`): re-read this line from the
        // item's column so its following lines line up with it.
        this.lines[index] = { ...line, indent: column, text: rest };
        result.push(this.parseBlock(column, indent));
      } else {
        this.position = index + 1;
        result.push(this.parseInlineValue(rest, line, indent));
      }
    }
    return result;
  }

  /** A value that starts on the current line after `key:` or `- `. */
  parseInlineValue(rest: string, line: Line, parentIndent: number): FrontmatterValue {
    const first = rest[0]!;
    if (first === "&" || first === "*" || first === "!") {
      throw new FrontmatterError("anchors, aliases and tags are not supported", line.number);
    }
    if (first === "?") throw new FrontmatterError("complex keys are not supported", line.number);
    if (first === "|" || first === ">") return this.parseBlockScalar(rest, line, parentIndent);
    if (first === "[" || first === "{") return this.parseFlow(rest, line, parentIndent);
    if (first === '"' || first === "'") return this.parseQuoted(rest, line, parentIndent);
    return this.parsePlain(rest, line, parentIndent);
  }

  private continuationLines(parentIndent: number): Line[] {
    const taken: Line[] = [];
    let cursor = this.position;
    const pending: Line[] = [];
    while (cursor < this.lines.length) {
      const next = this.lines[cursor]!;
      if (next.text.trim() === "") {
        pending.push(next);
        cursor++;
        continue;
      }
      if (next.indent <= parentIndent) break;
      taken.push(...pending, next);
      pending.length = 0;
      cursor++;
    }
    this.position = cursor - pending.length;
    return taken;
  }

  private parsePlain(rest: string, line: Line, parentIndent: number): FrontmatterValue {
    const parts = [stripComment(rest)];
    let multiLine = false;
    for (;;) {
      const index = this.position;
      const next = this.lines[index];
      if (!next || next.text.trim() === "" || next.indent <= parentIndent) break;
      if (next.text.trimStart().startsWith("#")) break;
      // A more-indented line after a plain value can only continue it (be liberal: even
      // when it looks like `key: value`, as hand-written descriptions often do).
      parts.push(stripComment(next.text.trim()));
      multiLine = true;
      this.position = index + 1;
    }
    const text = parts.join(" ");
    if (multiLine) return text;
    if (text === "" && rest.trim() !== "") return null;
    return resolvePlainScalar(text, line.number);
  }

  private parseQuoted(rest: string, line: Line, parentIndent: number): FrontmatterValue {
    const quote = rest[0]!;
    let text = rest;
    for (;;) {
      const end = closingQuote(text, quote);
      if (end !== -1) {
        const after = text.slice(end + 1).trim();
        if (after !== "" && !after.startsWith("#")) {
          throw new FrontmatterError("unexpected text after a quoted value", line.number);
        }
        const inner = text.slice(1, end);
        return quote === '"'
          ? unescapeDoubleQuoted(inner, line.number)
          : foldQuoted(inner).replaceAll("''", "'");
      }
      const next = this.lines[this.position];
      if (!next || (next.text.trim() !== "" && next.indent <= parentIndent)) {
        throw new FrontmatterError("a quoted value is not closed", line.number);
      }
      text += `\n${next.text}`;
      this.position++;
    }
  }

  private parseFlow(rest: string, line: Line, parentIndent: number): FrontmatterValue {
    let text = rest;
    for (;;) {
      const reader = new FlowReader(text, line.number);
      const result = reader.tryRead();
      if (result !== undefined) return result;
      const next = this.lines[this.position];
      if (!next || (next.text.trim() !== "" && next.indent <= parentIndent)) {
        throw new FrontmatterError("a [list] or {mapping} is not closed", line.number);
      }
      text += ` ${next.text.trim()}`;
      this.position++;
    }
  }

  private parseBlockScalar(rest: string, line: Line, parentIndent: number): string {
    const header = /^([|>])([1-9+-]{0,2})[ \t]*(?:#.*)?$/.exec(rest);
    if (!header) throw new FrontmatterError("invalid block scalar header", line.number);
    const style = header[1]!;
    const indicators = header[2]!;
    const chomping = indicators.includes("-")
      ? "strip"
      : indicators.includes("+")
        ? "keep"
        : "clip";
    const explicit = /[1-9]/.exec(indicators)?.[0];
    const body = this.continuationLines(parentIndent);
    const firstContent = body.find((candidate) => candidate.text.trim() !== "");
    const contentIndent = explicit
      ? Math.max(parentIndent, 0) + Number(explicit)
      : (firstContent?.indent ?? parentIndent + 1);
    // Trailing blank lines belong to the scalar only for `keep`; continuationLines stops before them.
    let trailingBlank = 0;
    if (chomping === "keep") {
      while (this.position < this.lines.length && this.lines[this.position]!.text.trim() === "") {
        trailingBlank++;
        this.position++;
      }
    }
    const contentLines = body.map((candidate) => {
      if (candidate.text.trim() === "") return "";
      if (candidate.indent < contentIndent) {
        throw new FrontmatterError(
          "a block scalar line is less indented than the first one",
          candidate.number,
        );
      }
      return candidate.raw.slice(contentIndent);
    });
    let text = style === "|" ? contentLines.join("\n") : foldBlock(contentLines);
    if (text === "" && chomping !== "keep") return "";
    text = text.replace(/\n+$/, "");
    if (chomping === "strip") return text;
    if (chomping === "clip") return `${text}\n`;
    return `${text}\n${"\n".repeat(trailingBlank + countTrailingEmpty(contentLines))}`;
  }
}

function countTrailingEmpty(lines: string[]): number {
  let count = 0;
  for (let index = lines.length - 1; index >= 0 && lines[index] === ""; index--) count++;
  return count;
}

function foldBlock(lines: string[]): string {
  let out = "";
  let previous: "none" | "text" | "more" | "empty" = "none";
  for (const line of lines) {
    if (line === "") {
      out += "\n";
      previous = "empty";
    } else if (/^[ \t]/.test(line)) {
      if (previous === "text") out += "\n";
      out += `${line}\n`;
      previous = "more";
    } else {
      if (previous === "text") out += " ";
      out += line;
      previous = "text";
    }
  }
  return out;
}

function stripComment(text: string): string {
  const index = text.search(/[ \t]#/);
  return (index === -1 ? text : text.slice(0, index)).trimEnd();
}

function closingQuote(text: string, quote: string): number {
  for (let index = 1; index < text.length; index++) {
    const char = text[index];
    if (quote === '"' && char === "\\") {
      index++;
      continue;
    }
    if (char === quote) {
      if (quote === "'" && text[index + 1] === "'") {
        index++;
        continue;
      }
      return index;
    }
  }
  return -1;
}

/** Line folding inside quoted scalars: a line break becomes a space, blank lines become breaks. */
function foldQuoted(text: string): string {
  if (!text.includes("\n")) return text;
  const lines = text.split("\n");
  let out = lines[0]!.trimEnd();
  let blank = 0;
  for (const line of lines.slice(1)) {
    const trimmed = line.trim();
    if (trimmed === "") {
      blank++;
      continue;
    }
    out += blank > 0 ? "\n".repeat(blank) : " ";
    out += trimmed;
    blank = 0;
  }
  return out;
}

const ESCAPES: Record<string, string> = {
  "0": "\0",
  a: "\x07",
  b: "\b",
  t: "\t",
  "\t": "\t",
  n: "\n",
  v: "\v",
  f: "\f",
  r: "\r",
  e: "\x1b",
  " ": " ",
  '"': '"',
  "/": "/",
  "\\": "\\",
  N: "\u0085",
  _: "\u00a0",
  L: "\u2028",
  P: "\u2029",
};

function unescapeDoubleQuoted(inner: string, lineNumber: number): string {
  // Escaped line breaks join lines without a space; fold the rest like any quoted scalar.
  const joined = inner.replace(/\\\n[ \t]*/g, "");
  const folded = foldQuoted(joined);
  let out = "";
  for (let index = 0; index < folded.length; index++) {
    const char = folded[index]!;
    if (char !== "\\") {
      out += char;
      continue;
    }
    const code = folded[index + 1];
    if (code === undefined) throw new FrontmatterError("a dangling backslash", lineNumber);
    const hexLength = code === "x" ? 2 : code === "u" ? 4 : code === "U" ? 8 : 0;
    if (hexLength > 0) {
      const hex = folded.slice(index + 2, index + 2 + hexLength);
      if (!new RegExp(`^[0-9a-fA-F]{${hexLength}}$`).test(hex)) {
        throw new FrontmatterError(`invalid escape \\${code}${hex}`, lineNumber);
      }
      const codePoint = Number.parseInt(hex, 16);
      if (codePoint > 0x10ffff)
        throw new FrontmatterError(`invalid escape \\${code}${hex}`, lineNumber);
      out += String.fromCodePoint(codePoint);
      index += 1 + hexLength;
      continue;
    }
    const replacement = ESCAPES[code];
    if (replacement === undefined)
      throw new FrontmatterError(`invalid escape \\${code}`, lineNumber);
    out += replacement;
    index++;
  }
  return out;
}

function parseKey(raw: string, lineNumber: number): string {
  if (raw.startsWith('"')) return unescapeDoubleQuoted(raw.slice(1, -1), lineNumber);
  if (raw.startsWith("'")) return raw.slice(1, -1).replaceAll("''", "'");
  return raw.trim();
}

const INTEGER = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

/** YAML 1.2 core schema for plain scalars; anything not null/bool/number stays a string. */
function resolvePlainScalar(text: string, lineNumber?: number): FrontmatterValue {
  if (text === "" || text === "~" || text === "null" || text === "Null" || text === "NULL")
    return null;
  if (text === "true" || text === "True" || text === "TRUE") return true;
  if (text === "false" || text === "False" || text === "FALSE") return false;
  if (INTEGER.test(text) || FLOAT.test(text)) {
    const number = Number(text);
    // Integers beyond 2^53 would silently change; keep their digits as a string.
    if (Number.isFinite(number) && (!INTEGER.test(text) || Number.isSafeInteger(number)))
      return number;
    return text;
  }
  if (lineNumber !== undefined && (text.startsWith("&") || text.startsWith("*"))) {
    throw new FrontmatterError("anchors and aliases are not supported", lineNumber);
  }
  return text;
}

/** Reads one JSON-like flow collection; `undefined` when the text ends before it closes. */
class FlowReader {
  private index = 0;

  constructor(
    private readonly text: string,
    private readonly lineNumber: number,
  ) {}

  tryRead(): FrontmatterValue | undefined {
    try {
      const value = this.readValue();
      this.skipSpace();
      const after = this.text.slice(this.index).trim();
      if (after !== "" && !after.startsWith("#"))
        this.fail("unexpected text after a [list] or {mapping}");
      return value;
    } catch (error) {
      if (error instanceof IncompleteFlow) return undefined;
      throw error;
    }
  }

  private fail(message: string): never {
    throw new FrontmatterError(message, this.lineNumber);
  }

  private skipSpace(): void {
    while (this.index < this.text.length && /\s/.test(this.text[this.index]!)) this.index++;
  }

  private peek(): string {
    this.skipSpace();
    if (this.index >= this.text.length) throw new IncompleteFlow();
    return this.text[this.index]!;
  }

  private readValue(): FrontmatterValue {
    const char = this.peek();
    if (char === "[") return this.readSequence();
    if (char === "{") return this.readMapping();
    if (char === '"' || char === "'") return this.readQuoted();
    if (char === "&" || char === "*" || char === "!")
      this.fail("anchors, aliases and tags are not supported");
    return this.readPlain();
  }

  private readSequence(): FrontmatterValue[] {
    this.index++;
    const items: FrontmatterValue[] = [];
    for (;;) {
      if (this.peek() === "]") {
        this.index++;
        return items;
      }
      items.push(this.readValue());
      const next = this.peek();
      if (next === ",") this.index++;
      else if (next !== "]") this.fail("expected ',' or ']'");
    }
  }

  private readMapping(): Record<string, FrontmatterValue> {
    this.index++;
    const result: Record<string, FrontmatterValue> = {};
    for (;;) {
      if (this.peek() === "}") {
        this.index++;
        return result;
      }
      const key = this.readValue();
      if (typeof key === "object" && key !== null) this.fail("complex keys are not supported");
      const name = String(key);
      if (Object.hasOwn(result, name)) this.fail(`duplicate key ${JSON.stringify(name)}`);
      let value: FrontmatterValue = null;
      if (this.peek() === ":") {
        this.index++;
        const next = this.peek();
        value = next === "," || next === "}" ? null : this.readValue();
      }
      Object.defineProperty(result, name, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
      const next = this.peek();
      if (next === ",") this.index++;
      else if (next !== "}") this.fail("expected ',' or '}'");
    }
  }

  private readQuoted(): string {
    const quote = this.text[this.index]!;
    const end = closingQuote(this.text.slice(this.index), quote);
    if (end === -1) throw new IncompleteFlow();
    const inner = this.text.slice(this.index + 1, this.index + end);
    this.index += end + 1;
    return quote === '"'
      ? unescapeDoubleQuoted(inner, this.lineNumber)
      : inner.replaceAll("''", "'");
  }

  private readPlain(): FrontmatterValue {
    const start = this.index;
    while (this.index < this.text.length) {
      const char = this.text[this.index]!;
      if (char === "," || char === "]" || char === "}" || char === "[" || char === "{") break;
      if (char === ":" && /[\s,[\]{}]|^$/.test(this.text[this.index + 1] ?? "")) break;
      if (char === "#" && /\s/.test(this.text[this.index - 1] ?? "")) break;
      this.index++;
    }
    if (this.index >= this.text.length) throw new IncompleteFlow();
    const text = this.text.slice(start, this.index).trim();
    if (text === "") this.fail("expected a value");
    return resolvePlainScalar(text);
  }
}

class IncompleteFlow extends Error {}

// ---------------------------------------------------------------------------------------------
// Writer
// ---------------------------------------------------------------------------------------------

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;
// Words other YAML readers (YAML 1.1) turn into booleans; quoting them keeps every reader honest.
const YAML11_WORDS = /^(?:y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/;

function isPlainSafe(text: string): boolean {
  if (text === "" || text !== text.trim()) return false;
  if (/^[-?:,[\]{}#&*!|>'"%@`]/.test(text)) return false;
  // Printable, single-line, no sequences that end a plain scalar or start a comment.
  if (!/^[\x20-\x7e\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]+$/u.test(text)) return false;
  if (/[\u2028\u2029\ufeff]/.test(text)) return false;
  if (text.includes(": ") || text.includes(" #") || text.endsWith(":")) return false;
  if (YAML11_WORDS.test(text) || /^[-+]?\.(?:inf|Inf|INF|nan|NaN|NAN)$/.test(text)) return false;
  if (/^0[xob]/.test(text)) return false;
  return resolvePlainScalar(text) === text;
}

/** A JSON string is a valid YAML double-quoted scalar; non-printables get escaped too. */
function quote(text: string): string {
  return JSON.stringify(text).replace(
    /[\u007f-\u009f\u2028\u2029\ufeff]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

function formatScalar(value: string | number | boolean | null): string {
  if (value === null) return "null";
  if (typeof value === "boolean") return String(value);
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new FrontmatterError("numbers must be finite");
    return JSON.stringify(value);
  }
  return isPlainSafe(value) ? value : quote(value);
}

function formatKey(key: string): string {
  return PLAIN_KEY.test(key) && resolvePlainScalar(key) === key && !YAML11_WORDS.test(key)
    ? key
    : quote(key);
}

function isCompound(
  value: FrontmatterValue,
): value is FrontmatterValue[] | { [key: string]: FrontmatterValue } {
  return typeof value === "object" && value !== null;
}

function isEmptyCompound(value: FrontmatterValue): boolean {
  return (
    isCompound(value) &&
    (Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0)
  );
}

/** Formats a mapping as block YAML, one `key: value` per line, each line ending in `\n`. */
export function formatYamlMapping(mapping: Record<string, FrontmatterValue>, indent = 0): string {
  const pad = " ".repeat(indent);
  let out = "";
  for (const [key, value] of Object.entries(mapping)) {
    if (value === undefined) continue;
    out += `${pad}${formatKey(key)}:`;
    if (isCompound(value) && !isEmptyCompound(value)) {
      out += "\n";
      out += Array.isArray(value)
        ? formatYamlSequence(value, indent + 2)
        : formatYamlMapping(value, indent + 2);
    } else {
      out += ` ${formatInline(value)}\n`;
    }
  }
  return out;
}

function formatYamlSequence(items: FrontmatterValue[], indent: number): string {
  const pad = " ".repeat(indent);
  // Nested collections inside a list are written as JSON flow, which every YAML reader accepts.
  return items.map((item) => `${pad}- ${formatInline(item)}\n`).join("");
}

function formatInline(value: FrontmatterValue): string {
  if (isCompound(value)) {
    if (isEmptyCompound(value)) return Array.isArray(value) ? "[]" : "{}";
    return formatFlow(value);
  }
  return formatScalar(value);
}

function formatFlow(value: FrontmatterValue): string {
  if (Array.isArray(value)) return `[${value.map(formatFlow).join(", ")}]`;
  if (isCompound(value)) {
    return `{${Object.entries(value)
      .filter(([, item]) => item !== undefined)
      .map(([key, item]) => `${quote(key)}: ${formatFlow(item)}`)
      .join(", ")}}`;
  }
  if (typeof value === "string") return quote(value);
  return formatScalar(value);
}
