/**
 * Markdown frontmatter (SKILL.md, sub-agent files) read and written with the `yaml` package,
 * behind a strict wrapper: we read what Agent Skills, Claude Code sub-agents and Prime Agent
 * write and refuse the parts of YAML that make files ambiguous or dangerous to round-trip.
 *
 * Read: any YAML 1.2 block or flow document whose plain scalars resolve with the core schema's
 * null, booleans and decimal numbers (everything else — `yes`, `0x1F`, `0123` — stays a
 * string, as do integers beyond 2^53). Refused with `FrontmatterError`: anchors, aliases,
 * tags, complex or explicit (`?`) keys, tabs in indentation, duplicate keys, several documents
 * and anything `yaml` reports as an error.
 *
 * Write: `yaml`'s block style with strings quoted whenever a YAML 1.1 reader could take them
 * for something else, so this reader and any other parse it back to the same JSON value.
 */
import { hasErrorMarker, HarnessValidationError } from "../../errors";
import {
  Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  parseDocument,
  Scalar,
  visit,
  type Node as YamlNode,
} from "yaml";

/** A frontmatter value: plain JSON. */
export type FrontmatterValue =
  string | number | boolean | null | FrontmatterValue[] | { [key: string]: FrontmatterValue };

const frontmatterErrorMarker = Symbol.for("cairn.harness.error.frontmatter");

/**
 * A frontmatter block could not be read (or a value could not be written): a validation error,
 * code `validation:frontmatter`.
 */
export class FrontmatterError extends HarnessValidationError {
  private readonly [frontmatterErrorMarker] = true;

  constructor(
    message: string,
    readonly line?: number,
  ) {
    super({
      surface: "frontmatter",
      message: line === undefined ? message : `line ${line}: ${message}`,
      details: line === undefined ? {} : { line },
    });
  }

  static override isInstance(error: unknown): error is FrontmatterError {
    return hasErrorMarker(error, frontmatterErrorMarker);
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

/** Parses YAML lines (the frontmatter block) into a JSON value; an empty block is `null`. */
export function parseYaml(rawLines: readonly string[], firstLineNumber = 1): FrontmatterValue {
  const lines = [...rawLines];
  for (;;) {
    const document = parseStrict(lines.join("\n"));
    // Skill and sub-agent files often hold `description: Use when: …` unquoted, which YAML
    // refuses as a nested mapping on one line. Such a line's value is read as one string.
    const [error] = document.errors;
    const index = error?.code === "BLOCK_AS_IMPLICIT_KEY" ? error.linePos?.[0].line : undefined;
    const fixed = index === undefined ? undefined : quotePlainValue(lines[index - 1] ?? "");
    if (index === undefined || fixed === undefined)
      return readDocument(document, lines.join("\n"), firstLineNumber);
    lines[index - 1] = fixed;
  }
}

const PLAIN_PAIR = /^(\s*(?:- )?[A-Za-z0-9_][\w.-]*:[ ]+)([^\s"'[{|>&*!#%@`].*)$/;

/** `key: a: b` → `key: "a: b"`; `undefined` when the line is not such a pair. */
function quotePlainValue(line: string): string | undefined {
  const match = PLAIN_PAIR.exec(line);
  if (!match) return undefined;
  const value = match[2]!.replace(/\s+#.*$/, "").trimEnd();
  return `${match[1]}${JSON.stringify(value)}`;
}

function parseStrict(source: string) {
  return parseDocument(source, {
    version: "1.2",
    // Every scalar arrives as a string; plain ones are resolved below with our narrower rules.
    schema: "failsafe",
    uniqueKeys: true,
    strict: true,
    keepSourceTokens: true,
  });
}

function readDocument(
  document: ReturnType<typeof parseStrict>,
  source: string,
  firstLineNumber: number,
): FrontmatterValue {
  const lineOf = (offset: number | undefined) =>
    offset === undefined
      ? undefined
      : firstLineNumber + (source.slice(0, offset).match(/\n/g)?.length ?? 0);
  const [error] = document.errors;
  if (error) {
    const line = error.linePos?.[0].line;
    throw new FrontmatterError(
      error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, ""),
      line === undefined ? lineOf(error.pos[0]) : firstLineNumber + line - 1,
    );
  }
  visit(document, {
    Alias(_key, node) {
      throw new FrontmatterError("anchors and aliases are not supported", lineOf(node.range?.[0]));
    },
    Node(_key, node) {
      if (node.anchor) {
        throw new FrontmatterError(
          "anchors and aliases are not supported",
          lineOf(node.range?.[0]),
        );
      }
      if (node.tag) throw new FrontmatterError("tags are not supported", lineOf(node.range?.[0]));
    },
    Map(_key, node) {
      const token = node.srcToken;
      const items = token && "items" in token ? token.items : [];
      for (const item of items) {
        if ("start" in item && item.start.some((part) => part.type === "explicit-key-ind")) {
          throw new FrontmatterError("complex keys are not supported", lineOf(node.range?.[0]));
        }
      }
    },
    Pair(_key, pair) {
      if (!isScalar(pair.key)) {
        throw new FrontmatterError("complex keys are not supported", lineOf(node(pair.value)));
      }
    },
  });
  if (document.contents === null) return null;
  return toValue(document.contents as YamlNode);
}

function node(value: unknown): number | undefined {
  return isScalar(value) || isMap(value) || isSeq(value) ? value.range?.[0] : undefined;
}

function toValue(value: unknown): FrontmatterValue {
  if (value === null || value === undefined) return null;
  if (isScalar(value)) {
    const text = String(value.value ?? "");
    return value.type === Scalar.PLAIN ? resolvePlainScalar(text) : text;
  }
  if (isSeq(value)) return value.items.map(toValue);
  if (isMap(value)) {
    const result: Record<string, FrontmatterValue> = {};
    for (const pair of value.items) {
      const key = isScalar(pair.key) ? String(pair.key.value ?? "") : String(pair.key);
      // defineProperty: a `__proto__` key is a plain key, never the object's prototype.
      Object.defineProperty(result, key, {
        value: toValue(pair.value),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return result;
  }
  if (isAlias(value) || isPair(value)) throw new FrontmatterError("unsupported YAML node");
  throw new FrontmatterError("unsupported YAML value");
}

const INTEGER = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

/** YAML 1.2 core schema for plain scalars; anything not null/bool/decimal stays a string. */
function resolvePlainScalar(text: string): FrontmatterValue {
  if (text === "" || text === "~" || text === "null" || text === "Null" || text === "NULL")
    return null;
  if (text === "true" || text === "True" || text === "TRUE") return true;
  if (text === "false" || text === "False" || text === "FALSE") return false;
  if (INTEGER.test(text) || FLOAT.test(text)) {
    const number = Number(text);
    // Integers beyond 2^53 would silently change; keep their digits as a string.
    if (Number.isFinite(number) && (!INTEGER.test(text) || Number.isSafeInteger(number)))
      return number;
  }
  return text;
}

// Characters some readers treat as line breaks or drop: always written double-quoted (escaped).
const NEEDS_ESCAPE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\ufeff]/;

/**
 * Formats a mapping as block YAML, each line ending in `\n`. Written as YAML 1.1 so that words
 * a 1.1 reader would turn into booleans, octals or dates (`yes`, `0123`) come out quoted.
 */
export function formatYamlMapping(mapping: Record<string, FrontmatterValue>): string {
  const document = new Document(mapping, { version: "1.1" });
  visit(document, {
    Scalar(_key, scalar) {
      if (typeof scalar.value === "number" && !Number.isFinite(scalar.value)) {
        throw new FrontmatterError("numbers must be finite");
      }
      if (typeof scalar.value === "string" && NEEDS_ESCAPE.test(scalar.value)) {
        scalar.type = Scalar.QUOTE_DOUBLE;
      }
    },
  });
  if (document.contents === null || Object.keys(mapping).length === 0) return "";
  return document.toString({ lineWidth: 0, singleQuote: false });
}
