import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

// deploy/kubernetes rendered by the real kustomize (`kubectl kustomize`), as `kubectl apply -k` would.
export const KUBERNETES = path.resolve(__dirname, '../deploy/kubernetes');
export const OVERLAYS = readdirSync(path.join(KUBERNETES, 'overlays'));

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  [key: string]: any;
}

export const hasKubectl = (() => {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

/**
 * An overlay rendered in a copy of deploy/kubernetes whose `*.env.example` files stand in for the real
 * `*.env`; `edit` may change the copy first (its root directory is given), as an operator edits theirs.
 */
export function renderOverlay(overlay: string, edit?: (root: string) => void): K8sObject[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-kustomize-'));
  try {
    cpSync(KUBERNETES, dir, { recursive: true });
    // Every overlay's, since one overlay may build on another (redis-cluster on example).
    for (const each of readdirSync(path.join(dir, 'overlays'))) {
      const eachDir = path.join(dir, 'overlays', each);
      for (const file of readdirSync(eachDir).filter((f) => f.endsWith('.env.example')))
        cpSync(path.join(eachDir, file), path.join(eachDir, file.replace(/\.example$/, '')));
    }
    edit?.(dir);
    const rendered = execFileSync('kubectl', ['kustomize', path.join(dir, 'overlays', overlay)], { encoding: 'utf8' });
    return parseAllDocuments(rendered).map((doc) => doc.toJSON() as K8sObject);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
