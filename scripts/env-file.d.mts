/** Types for env-file.mjs (the local env file `npm start` keeps). */
export function readEnvFile(path: string): Record<string, string>;
export function appendEnvValue(path: string, key: string, value: string, comment?: string): void;
export function makeOwnerOnly(path: string): boolean;
