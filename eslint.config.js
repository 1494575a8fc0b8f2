// Lint config. The import rules enforce the layering table in docs/design.md:
// gate-vmf and system-one import nothing from @mem; store-spec imports gate-vmf; core imports
// store-spec, gate-vmf and system-one; retrieval imports core and system-one; graph-neo4j imports
// store-spec only (its tests also core); ai-sdk imports core; gate-service imports gate-vmf (its
// tests also core, for a real text embedder); no cycles anywhere. Tests may import the private
// @mem/test-utils (it imports nothing from @mem).
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const layering = {
  'packages/gate-vmf': [],
  'packages/system-one': [],
  'packages/store-spec': ['@mem/gate-vmf'],
  'packages/core': ['@mem/store-spec', '@mem/gate-vmf', '@mem/system-one'],
  'packages/retrieval': ['@mem/core', '@mem/system-one'],
  'packages/graph-neo4j': ['@mem/store-spec'],
  'packages/graph-neo4j/{test/**/*.ts,src/**/*.test.ts}': ['@mem/store-spec', '@mem/core'],
  'packages/ai-sdk': ['@mem/core'],
  'packages/gate-service': ['@mem/gate-vmf'],
  'packages/gate-service/**/*.test.ts': ['@mem/gate-vmf', '@mem/core'],
};
const all = ['@mem/gate-vmf', '@mem/system-one', '@mem/store-spec', '@mem/core', '@mem/retrieval', '@mem/graph-neo4j', '@mem/ai-sdk', '@mem/gate-service', '@mem/demo-agent'];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.turbo/**', '**/test-artifacts/**', 'apps/demo-agent/public/vendor/**', 'scripts/lint-fixtures/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,mts,cts}'],
    plugins: { 'import-x': importX },
    // Without a TypeScript resolver import-x resolves none of the `.js` specifiers that point at
    // `.ts` sources, and no-cycle / no-unresolved then check nothing (issue 35). The resolver reads
    // every package's tsconfig, and the `@mem/source` condition maps @mem imports to sources.
    settings: {
      'import-x/extensions': ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.mts', '.cts'] },
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: ['tsconfig.base.json', 'packages/*/tsconfig.json', 'apps/*/tsconfig.json'],
          conditionNames: ['@mem/source', 'import', 'node', 'default'],
          noWarnOnMultipleProjects: true,
        }),
      ],
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['warn', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
      'import-x/no-cycle': 'error',
      'import-x/no-unresolved': 'error',
      'import-x/no-self-import': 'error',
    },
  },
  // Functions ≤ 150 lines in library code (issue 35): every package's and app's src/, counting every
  // line of the function (blank lines and comments too). Tests are excluded: *.test.ts and the store
  // conformance suite (src/testing/conformance.ts, the suite of tests every store adapter runs).
  // scripts/lint-selftest.mjs checks that a 151-line function in src/ is reported and one in a test is not.
  {
    files: ['packages/*/src/**/*.{ts,mts,cts}', 'apps/*/src/**/*.{ts,mts,cts}'],
    ignores: ['**/*.test.ts', '**/src/testing/conformance.ts'],
    rules: { 'max-lines-per-function': ['error', { max: 150, skipBlankLines: false, skipComments: false, IIFEs: true }] },
  },
  ...Object.entries(layering).map(([dir, allowed]) => ({
    files: [dir.includes('*') ? dir : `${dir}/**/*.{ts,mts,cts}`],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: all.filter((p) => !allowed.includes(p)).flatMap((p) => [p, `${p}/*`]),
              message: `Layering (docs/design.md): ${dir} may import only ${allowed.length ? allowed.join(', ') : 'nothing'} from @mem.`,
            },
          ],
        },
      ],
    },
  })),
);
