/** A project of orval's configuration (orval's `Options`; checked by orval when it runs). */
export type Options = Record<string, unknown>;

/** What generate.ts uses of orval: `generate(options, workspace, flags)` (orval 8's signature). */
export function generate(
  options: Options,
  workspace: string,
  flags: { throwOnError?: boolean; failOnWarnings?: boolean; logLevel?: 'silent' | 'error' | 'warn' | 'info' },
): Promise<void>;
