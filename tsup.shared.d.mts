import type { defineConfig, Options } from 'tsup';
/** The shared tsup build of the publishable @mem packages (tsup.shared.mjs). */
export declare function memTsupConfig(entry: Options['entry'], extra?: Options): ReturnType<typeof defineConfig>;
