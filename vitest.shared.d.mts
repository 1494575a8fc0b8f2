import type { UserConfig } from 'vitest/config';
export declare function memVitestConfig(extra?: { testTimeout?: number; include?: string[] }): UserConfig;
export declare function memLlmVitestConfig(extra?: { include?: string[] }): UserConfig;
