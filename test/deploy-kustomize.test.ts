import { existsSync } from 'node:fs';
import path from 'node:path';
import { hasKubectl, KUBERNETES, OVERLAYS as overlays, renderOverlay, type K8sObject } from './kustomize';

// Every overlay rendered by the real kustomize (`kubectl kustomize`), as `kubectl apply -k` would, and every
// name one object gives another resolved in the render: a generated Secret's hashed name reaching the KEDA
// TriggerAuthentication and the pods, a ScaledObject's Deployment, its TriggerAuthentication.

type Labels = Record<string, string>;

/** Whether a label selector (matchLabels, and matchExpressions with In) selects these labels. */
function selects(
  selector: { matchLabels?: Labels; matchExpressions?: Array<{ key: string; operator: string; values: string[] }> },
  labels: Labels,
) {
  return (
    Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value) &&
    (selector.matchExpressions ?? []).every((e) => e.operator === 'In' && e.values.includes(labels[e.key] ?? ''))
  );
}

/** The named ports of a workload's containers. */
function containerPorts(workload: K8sObject): Set<string> {
  const containers = workload.spec.template.spec.containers as Array<{ ports?: Array<{ name?: string }> }>;
  return new Set(containers.flatMap((c) => (c.ports ?? []).flatMap((p) => (p.name ? [p.name] : []))));
}

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

  it.each(overlays)(
    'when overlay %s is rendered, then every Service, ServiceMonitor and NetworkPolicy selects pods or Services that have the ports it names',
    (overlay) => {
      const objects = renderOverlay(overlay);
      const pods = objects
        .filter((o) => o.kind === 'Deployment' || o.kind === 'Job')
        .map((o) => ({ name: o.metadata.name, labels: o.spec.template.metadata.labels as Labels, ports: containerPorts(o) }));
      const services = objects.filter((o) => o.kind === 'Service');
      const problems: string[] = [];
      for (const service of services) {
        const selected = pods.filter((p) => selects({ matchLabels: service.spec.selector }, p.labels));
        if (selected.length === 0) problems.push(`Service/${service.metadata.name} selects no pod`);
        for (const port of service.spec.ports as Array<{ name: string; targetPort: string | number }>)
          for (const pod of selected)
            if (typeof port.targetPort === 'string' && !pod.ports.has(port.targetPort))
              problems.push(`Service/${service.metadata.name} port ${port.name}: ${pod.name} has no port ${port.targetPort}`);
      }
      for (const monitor of objects.filter((o) => o.kind === 'ServiceMonitor')) {
        const selected = services.filter((s) => selects(monitor.spec.selector, s.metadata.labels ?? {}));
        for (const endpoint of monitor.spec.endpoints as Array<{ port: string }>)
          if (!selected.some((s) => (s.spec.ports as Array<{ name: string }>).some((p) => p.name === endpoint.port)))
            problems.push(`ServiceMonitor/${monitor.metadata.name} endpoint ${endpoint.port} is on no Service it selects`);
      }
      for (const policy of objects.filter((o) => o.kind === 'NetworkPolicy')) {
        const selected = pods.filter((p) => selects(policy.spec.podSelector, p.labels));
        if (selected.length === 0) problems.push(`NetworkPolicy/${policy.metadata.name} selects no pod`);
        for (const rule of (policy.spec.ingress ?? []) as Array<{ ports?: Array<{ port?: string | number }> }>)
          for (const { port } of rule.ports ?? [])
            if (typeof port === 'string' && !selected.some((p) => p.ports.has(port)))
              problems.push(`NetworkPolicy/${policy.metadata.name} names port ${port}, which no pod it selects has`);
      }
      // KEDA's list names begin with the QUEUE_PREFIX the pods read (hash-tagged on a cluster).
      const prefix = objects.find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('leadgen-config-'))?.data
        .QUEUE_PREFIX as string;
      for (const scaler of objects.filter((o) => o.kind === 'ScaledObject'))
        for (const trigger of scaler.spec.triggers as Array<{ metadata: { listName: string } }>)
          if (!trigger.metadata.listName.startsWith(`${prefix}:`) && !trigger.metadata.listName.startsWith(`{${prefix}:`))
            problems.push(`ScaledObject/${scaler.metadata.name} lists ${trigger.metadata.listName}, not under QUEUE_PREFIX ${prefix}`);
      expect(problems).toEqual([]);
      expect(objects.filter((o) => o.kind === 'NetworkPolicy').length).toBeGreaterThan(0);
    },
  );

  it('when the overlays are listed, then there is at least the example', () => {
    expect(overlays).toContain('example');
    expect(existsSync(path.join(KUBERNETES, 'overlays/example/kustomization.yaml'))).toBe(true);
  });
});
