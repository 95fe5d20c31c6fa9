// Preloaded into the Prisma CLI for PostgreSQL (see prisma/postgres/prisma.config.ts): the
// wasm schema engine leaves long timers behind, and the CLI lingers 10–60 s after finishing.
// Long timers must not keep the process alive; short ones (real work) are untouched.
const original = global.setTimeout;
global.setTimeout = function patchedSetTimeout(callback, delay, ...args) {
  const timer = original(callback, delay, ...args);
  if (typeof delay === "number" && delay >= 5000 && timer && typeof timer.unref === "function")
    timer.unref();
  return timer;
};
