/** For the CLI's tests: an `io` for `main` and the commands that records what they print. */
export function capture() {
  const out: string[] = [];
  const err: string[] = [];
  return {
    io: { out: (line: string) => out.push(line), err: (line: string) => err.push(line) },
    out,
    err,
  };
}
