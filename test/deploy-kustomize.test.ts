import { existsSync } from 'node:fs';
import path from 'node:path';
import { hasKubectl, KUBERNETES, OVERLAYS as overlays, renderOverlay } from './kustomize';

// Every overlay rendered by the real kustomize (`kubectl kustomize`), as `kubectl apply -k` would, and every
// name one object gives another resolved in the render: a generated Secret's hashed name reaching the KEDA
// TriggerAuthentication and the pods, a ScaledObject's Deployment, its TriggerAuthentication.

/** Every `{ key: name }` found anywhere under `value` where `key` is one of `keys`, with the key it was under. */
function namesUnder(
  value: unknown,
  parents: string[],
  out: Array<{ via: string; name: string }> = [],
): Array<{ via: string; name: string }> {
  if (Array.isArray(value)) for (const item of value) namesUnder(item, parents, out);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (parents.includes(key) && child && typeof child === 'object' && typeof (child as { name?: unknown }).name === 'string') {
        out.push({ via: key, name: (child as { name: string }).name });
      }
      namesUnder(child, parents, out);
    }
  }
  return out;
}

// CI has kubectl (its `kustomize` is built in); a machine without it cannot render, and says so.
(hasKubectl || process.env.CI ? describe : describe.skip)('deploy/kubernetes overlays, rendered by kustomize', () => {
  it.each(overlays)(
    'when overlay %s is rendered, then every Secret, ConfigMap, Deployment and TriggerAuthentication it names exists in it',
    (overlay) => {
      const objects = renderOverlay(overlay);
      const named = (kind: string) => new Set(objects.filter((o) => o.kind === kind).map((o) => o.metadata.name));
      const secrets = named('Secret');
      const configMaps = named('ConfigMap');
      const missing: string[] = [];
      for (const object of objects) {
        const where = `${object.kind}/${object.metadata.name}`;
        for (const { via, name } of namesUnder(object, ['secretRef', 'secretKeyRef', 'secret']))
          if (!secrets.has(name)) missing.push(`${where} ${via} ${name}`);
        for (const { via, name } of namesUnder(object, ['configMapRef', 'configMapKeyRef', 'configMap']))
          if (!configMaps.has(name)) missing.push(`${where} ${via} ${name}`);
        if (object.kind === 'TriggerAuthentication') {
          for (const ref of (object.spec as { secretTargetRef?: Array<{ name: string }> }).secretTargetRef ?? []) {
            if (!secrets.has(ref.name)) missing.push(`${where} secretTargetRef ${ref.name}`);
          }
        }
        if (object.kind === 'ScaledObject') {
          const spec = object.spec as { scaleTargetRef: { name: string }; triggers: Array<{ authenticationRef?: { name: string } }> };
          if (!named('Deployment').has(spec.scaleTargetRef.name)) missing.push(`${where} scaleTargetRef ${spec.scaleTargetRef.name}`);
          for (const trigger of spec.triggers) {
            if (trigger.authenticationRef && !named('TriggerAuthentication').has(trigger.authenticationRef.name))
              missing.push(`${where} authenticationRef ${trigger.authenticationRef.name}`);
          }
        }
      }
      expect(missing).toEqual([]);
      expect(objects.length).toBeGreaterThan(10);
    },
  );

  it('when the overlays are listed, then there is at least the example', () => {
    expect(overlays).toContain('example');
    expect(existsSync(path.join(KUBERNETES, 'overlays/example/kustomization.yaml'))).toBe(true);
  });
});
