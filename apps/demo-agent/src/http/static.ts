/**
 * Static files of the web playground (ours): a fixed list served from apps/demo-agent/public/, and
 * cytoscape served straight from node_modules (never copied into git). No directory traversal is
 * possible because only listed names are served.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Hono } from 'hono';
import { appFile } from '../app-root.js';

export const PUBLIC_DIR = appFile('public');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

function files(): Record<string, string> {
  const require = createRequire(import.meta.url);
  return {
    '/': path.join(PUBLIC_DIR, 'index.html'),
    '/index.html': path.join(PUBLIC_DIR, 'index.html'),
    '/app.js': path.join(PUBLIC_DIR, 'app.js'),
    '/wording.js': path.join(PUBLIC_DIR, 'wording.js'),
    '/style.css': path.join(PUBLIC_DIR, 'style.css'),
    '/sample-conversation.json': path.join(PUBLIC_DIR, '..', 'data', 'sample-conversation.json'),
    // The package's exports map offers the ESM build only under "import"; locate it next to the CJS entry.
    '/vendor/cytoscape.esm.min.mjs': path.join(path.dirname(require.resolve('cytoscape')), 'cytoscape.esm.min.mjs'),
  };
}

export function mountPlayground(app: Hono<any>): void {
  const table = files();
  for (const [route, file] of Object.entries(table)) {
    app.get(route, (c) => {
      const ext = path.extname(file) === '.mjs' ? '.js' : path.extname(file);
      const content = readFileSync(file);
      return c.body(content, 200, {
        'content-type': TYPES[ext] ?? 'application/octet-stream',
        'cache-control': 'no-cache',
        'x-content-type-options': 'nosniff',
      });
    });
  }
}
