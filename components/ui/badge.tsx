import { styled } from "./styled";

export const Badge = styled(
  "span",
  "border-border inline-flex items-center rounded-full border px-2 py-0.5 text-xs font-medium",
  "Badge",
);
