import { EmptyState } from "@/components/empty-state";

export default function RefinementsPage() {
  return (
    <div className="space-y-4">
      <h1 className="text-2xl font-semibold">Refinements</h1>
      <EmptyState title="Nothing here yet">
        Refinements of the harness and their rollbacks will be listed here.
      </EmptyState>
    </div>
  );
}
