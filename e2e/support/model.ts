import { scriptedModelServerClient } from "./scripted-model-server";

/** The scripted model server Playwright started (see playwright.config.ts). */
export function scriptedModel() {
  return scriptedModelServerClient(`http://127.0.0.1:${process.env.E2E_MODEL_PORT ?? 3199}`);
}
