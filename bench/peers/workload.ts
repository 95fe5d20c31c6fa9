// The shared workload of the peer benchmark (see bench/README.md, "Peers").
export const ITEMS = Number(process.env.BENCH_PEERS_ITEMS ?? 1_000);
export const THREAD = 50;
export const TOKEN_BUDGET = 4_000;

const TOPICS = ["deploys", "billing", "support", "hiring", "design"];

/** Memory item `index`: ~195 characters. */
export function itemText(index: number, revision = 0): string {
  const topic = TOPICS[index % TOPICS.length]!;
  const text = `Fact ${index} (rev ${revision}): the team decided item ${index} after a review of ${topic}; keep it in mind when answering questions about ${topic}, schedules and owners. Source: meeting notes.`;
  return text.padEnd(195, ".").slice(0, 195);
}

export function userText(turn: number): string {
  return `Turn ${turn}: when do ${TOPICS[turn % TOPICS.length]} happen and who owns item ${turn % ITEMS}?`;
}

export function replyText(turn: number): string {
  return `Answer ${turn}: ${TOPICS[turn % TOPICS.length]} happen on Fridays; item ${turn % ITEMS} is owned by the platform team.`;
}

/** Seed thread message `index` (alternating user / assistant). */
export function threadText(index: number): string {
  return index % 2 === 0 ? userText(index) : replyText(index);
}

/** One turn's timing, reported by a worker. */
export interface TurnSample {
  wall: number;
  cpu: number;
  context?: number;
}
