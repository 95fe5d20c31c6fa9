import { styled } from "./styled";

export const Input = styled(
  "input",
  "border-border placeholder:text-muted-foreground focus-visible:ring-ring h-9 w-full rounded-md border bg-transparent px-3 py-1 text-sm shadow-xs focus-visible:ring-2 focus-visible:outline-none disabled:opacity-50",
  "Input",
);

export const Select = styled(
  "select",
  "border-border focus-visible:ring-ring h-9 max-w-full min-w-0 rounded-md border bg-transparent px-2 text-sm focus-visible:ring-2 focus-visible:outline-none",
  "Select",
);
