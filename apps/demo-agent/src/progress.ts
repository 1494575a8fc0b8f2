/**
 * Progress bars for long CLI work (cli-progress), drawn on stderr and only when stderr is a TTY and
 * the command was not asked for `--json`. Otherwise every call is a no-op, so output stays clean.
 */
import { createRequire } from 'node:module';
import type cliProgressModule from 'cli-progress';

// loaded when a bar is first drawn (a TTY and a long job), not by every command (issue 36 point 4)
let cliProgress: typeof cliProgressModule | undefined;
const load = (): typeof cliProgressModule => (cliProgress ??= createRequire(import.meta.url)('cli-progress') as typeof cliProgressModule);

export interface Progress {
  start(label: string, total: number, options?: { percentOnly?: boolean }): void;
  update(done: number, extra?: { total?: number }): void;
  stop(): void;
}

const NOOP: Progress = { start() {}, update() {}, stop() {} };

export function createProgress(options: { enabled: boolean }): Progress {
  if (!options.enabled || !process.stderr.isTTY) return NOOP;
  let bar: cliProgressModule.SingleBar | null = null;
  return {
    start(label, total, opts = {}) {
      bar?.stop();
      const { SingleBar, Presets } = load();
      bar = new SingleBar(
        {
          stream: process.stderr,
          format: `${label.padEnd(22)} [{bar}] ${opts.percentOnly ? '' : '{value}/{total} '}{percentage}% | {duration_formatted}`,
          hideCursor: true,
          clearOnComplete: false,
          etaBuffer: 50,
        },
        Presets.shades_classic,
      );
      bar.start(Math.max(1, total), 0);
    },
    update(done, extra) {
      if (!bar) return;
      if (extra?.total !== undefined) bar.setTotal(Math.max(1, extra.total));
      bar.update(done);
    },
    stop() {
      bar?.stop();
      bar = null;
    },
  };
}
