import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

// deploy/kubernetes rendered by the real kustomize (`kubectl kustomize`), as `kubectl apply -k` would.
export const KUBERNETES = path.resolve(__dirname, '../deploy/kubernetes');
// The overlays git has: an operator's own (overlays/<yours>, with its uncommitted secrets.env) is not one of them.
export const OVERLAYS = execFileSync('git', ['ls-files', 'overlays/*/kustomization.yaml'], { cwd: KUBERNETES, encoding: 'utf8' })
  .split('\n')
  .filter(Boolean)
  .map((file) => path.basename(path.dirname(file)));

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
 * An overlay rendered in a copy of deploy/kubernetes as a fresh checkout has it (git's files only: no
 * secrets.env, no keda-redis.env); `edit` may change the copy first (its root directory is given), as an
 * operator edits theirs.
 */
export function renderOverlay(overlay: string, edit?: (root: string) => void): K8sObject[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'leadgen-kustomize-'));
  try {
    const tracked = execFileSync('git', ['ls-files', '-z', '.'], { cwd: KUBERNETES, encoding: 'utf8' }).split('\0').filter(Boolean);
    for (const file of tracked) cpSync(path.join(KUBERNETES, file), path.join(dir, file));
    edit?.(dir);
    const rendered = execFileSync('kubectl', ['kustomize', path.join(dir, 'overlays', overlay)], { encoding: 'utf8' });
    return parseAllDocuments(rendered).map((doc) => doc.toJSON() as K8sObject);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
