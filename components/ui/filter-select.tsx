import { Select } from "@/components/ui/input";

/**
 * A filter form's select: the "any" choice (empty value) first, then one option per
 * `[value, label]` pair; submits as `name`.
 */
export function FilterSelect(props: {
  name: string;
  label: string;
  value: string | null | undefined;
  any: string;
  options: readonly (readonly [value: string, label: string])[];
}) {
  return (
    <Select name={props.name} defaultValue={props.value ?? ""} aria-label={props.label}>
      <option value="">{props.any}</option>
      {props.options.map(([value, label]) => (
        <option key={value} value={value}>
          {label}
        </option>
      ))}
    </Select>
  );
}

/** A scope filter's choices (after "both"). */
export const SCOPE_OPTIONS = [
  ["global", "Global"],
  ["local", "Local"],
] as const;

/** A person filter's choices: each member by name (or email), the viewer as "Me". */
export function memberOptions(
  memberships: readonly { userId: string; user: { name: string | null; email: string } }[],
  viewerId: string,
): [value: string, label: string][] {
  return memberships.map((membership) => [
    membership.userId,
    membership.userId === viewerId ? "Me" : membership.user.name || membership.user.email,
  ]);
}
