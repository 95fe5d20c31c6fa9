/** Module resolve hook for fs-glob-shim.mjs: `fs` imported by the conformance package → the shim. */
const shim = new URL("./fs-with-glob.mjs", import.meta.url).href;

export async function resolve(specifier, context, nextResolve) {
  if (
    (specifier === "fs" || specifier === "node:fs") &&
    context.parentURL?.includes("/node_modules/@modelcontextprotocol/conformance/")
  ) {
    return { url: shim, shortCircuit: true };
  }
  return nextResolve(specifier, context);
}
