import type { UserConfig } from 'vitest/config';
export declare function memVitestConfig(extra?: { testTimeout?: number; include?: string[] }): UserConfig;
