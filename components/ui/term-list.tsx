/**
 * Read-only settings as term and value rows in a bordered box. Each value's test id is
 * `testIdPrefix` and the term in lower case, every run of other characters a dash
 * ("Client id" under "operations": `operations-client-id`).
 */
export function TermList({
  rows,
  testIdPrefix,
}: {
  rows: readonly (readonly [term: string, value: string])[];
  testIdPrefix: string;
}) {
  return (
    <dl className="border-border grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 rounded-md border p-3 text-sm">
      {rows.map(([term, value]) => (
        <div key={term} className="contents">
          <dt className="text-muted-foreground">{term}</dt>
          <dd
            className="min-w-0 font-mono break-all"
            data-testid={`${testIdPrefix}-${term.toLowerCase().replace(/[^a-z]+/g, "-")}`}
          >
            {value}
          </dd>
        </div>
      ))}
    </dl>
  );
}
