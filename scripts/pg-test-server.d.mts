/** Types of pg-test-server.mjs (for the TypeScript tests that use it). */
export interface PgServer {
  url: string;
  port: number;
  dir: string;
  stop(): Promise<void>;
}
export function pgBinDir(): string | null;
export function startPgServer(options?: { durable?: boolean }): Promise<PgServer>;
export function createDatabase(url: string, name: string): string;
