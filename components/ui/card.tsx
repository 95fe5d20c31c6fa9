import { styled } from "./styled";

export const Card = styled("div", "border-border bg-card rounded-lg border p-6 shadow-sm", "Card");
export const CardTitle = styled("h2", "text-lg font-semibold", "CardTitle");
export const CardDescription = styled("p", "text-muted-foreground text-sm", "CardDescription");
